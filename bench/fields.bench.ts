// Issue 17: what fields whose stored form differs from their wire form cost per request, on SQLite:
// read by id and a list of 20 on `profiles` (two encrypted fields, and two localized ones: headline
// split, bio resolve) beside `plain_profiles`, the same model with plain strings (fixtures/fields).
// Both tables hold the same rows under the same ids, served by one `mfx serve` per round; the goal
// is under 15% added on the list of 20, judged on server CPU per request.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, loadManifest, openSqlite, silentLogger, staticKeyProvider } from '@mfx/runtime';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { compare, type Contender, selected, type Workload } from './lib/load.js';
import { median } from './lib/proc.js';
import { startMfx } from './lib/process.js';

const ROWS = 1000;
const GOAL = 1.15;

/** The fixture's schema on a SQLite file, each table with the same ROWS rows (the profiles' fields sealed by the store). */
async function seeded(manifestDir: string, keys: Record<string, Buffer>): Promise<{ file: string; ids: string[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'mfx-bench-fields-')), 'fields.db');
  const app = createServer({ logger: silentLogger, handleSignals: false, keyProvider: staticKeyProvider({ keys }) });
  app.register(loadManifest(manifestDir));
  const adapter = openSqlite(file, app.registry);
  app.setDB(adapter);
  await app.migrate();
  app.handler();
  const ids: string[] = [];
  await adapter.transaction(async (tx) => {
    for (let i = 0; i < ROWS; i++) {
      const values = { name: `Person ${i}`, email: `person${i}@example.com`, phone: `+1 555 01${String(i).padStart(4, '0')}` };
      const headline = { en: `Engineer ${i}`, de: `Ingenieurin ${i}`, fr: `Ingénieure ${i}` };
      const bio = { en: `Builds bridges since ${1990 + (i % 30)}.`, de: `Baut Brücken seit ${1990 + (i % 30)}.` };
      const created = await app.store('Profile').insert(tx, { ...values, headline, bio });
      ids.push(String(created.id));
      await tx.raw('INSERT INTO plain_profiles (id, name, email, phone, headline, bio, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        created.id,
        values.name,
        values.email,
        values.phone,
        headline.en,
        bio.en,
        created.created_at,
        created.updated_at,
      ]);
    }
  });
  await adapter.close();
  return { file, ids };
}

export async function main(): Promise<void> {
  const manifestDir = await fixtureManifestDir('fields');
  const keys = { default: randomBytes(32), payments: randomBytes(32), index: randomBytes(32) };
  // mfx serve reads its keys from MFX_KEY_* variables, as in production.
  for (const [id, key] of Object.entries(keys)) process.env[`MFX_KEY_${id.toUpperCase()}`] = key.toString('base64');
  const { file, ids } = await seeded(manifestDir, keys);
  const pick = () => ids[Math.floor(Math.random() * ids.length)];

  // One contender per table: the same server and data, its base URL pointing at one table.
  const contender = (name: string, table: string): Contender => ({
    name,
    label: `${table}`,
    async start() {
      const copy = join(mkdtempSync(join(tmpdir(), 'mfx-bench-fields-run-')), 'fields.db');
      copyFileSync(file, copy);
      const child = await startMfx(manifestDir, `sqlite:${copy}`);
      return { ...child, url: `${child.url}/${table}` };
    },
  });
  const contenders = [contender('fields', 'profiles'), contender('plain', 'plain_profiles')];
  const workloads: Workload[] = selected([
    { name: 'read by id', path: () => `/${pick()}` },
    { name: 'list of 20', path: () => `?limit=20&page=${1 + Math.floor(Math.random() * (ROWS / 20))}` },
  ]);
  console.log(`${ROWS} rows in each table; profiles: two encrypted fields (email, phone) and two localized ones (headline split, bio resolve)`);
  for (const workload of workloads) {
    const row = await compare(workload, contenders);
    const fields = row.samples.get('fields')!;
    const plain = row.samples.get('plain')!;
    const cpu = fields.map((s, i) => s.cpuUs / plain[i]!.cpuUs);
    const rps = fields.map((s, i) => s.rps / plain[i]!.rps);
    const errors = [...fields, ...plain].reduce((n, s) => n + s.errors + s.non2xx, 0);
    const goal = workload.name === 'list of 20' ? `   goal CPU/req ratio < ${GOAL}: ${median(cpu) < GOAL ? 'met' : 'MISSED'}` : '';
    console.log(`\n${workload.name}`);
    console.log(`  CPU µs/req: profiles ${median(fields.map((s) => s.cpuUs)).toFixed(0)}, plain_profiles ${median(plain.map((s) => s.cpuUs)).toFixed(0)}`);
    console.log(`  profiles/plain_profiles: CPU/req ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), req/s ${median(rps).toFixed(3)} (${Math.min(...rps).toFixed(3)}–${Math.max(...rps).toFixed(3)})${goal}`);
    if (errors) console.log(`  ${errors} errors or non-2xx answers`);
  }
}
