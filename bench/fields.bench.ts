// Issue 17: what fields whose stored form differs from their wire form cost per request, on SQLite:
// read by id and a list of 20 on `profiles` (two encrypted fields, and two localized ones: headline
// split, bio resolve) beside `plain_profiles`, the same model with plain strings (fixtures/fields).
// Every table holds the same rows under the same ids, served by one `mfx serve` per round; the goal
// is under 15% added on the list of 20, judged on server CPU per request. localized_profiles and
// encrypted_profiles (one kind of field each) break the cost down. BENCH_FIELDS_CACHE=off turns the
// decryption cache off (docs/encryption.md).
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
      // The breakdown's tables: the same record with one kind of field each (the store seals and encodes), under the same id.
      for (const [model, table, record] of [
        ['LocalizedProfile', 'localized_profiles', { ...values, headline, bio }],
        ['EncryptedProfile', 'encrypted_profiles', { ...values, headline: headline.en, bio: bio.en }],
      ] as const) {
        const twin = await app.store(model).insert(tx, record);
        await tx.raw(`UPDATE ${table} SET id = ?, created_at = ?, updated_at = ? WHERE id = ?`, [created.id, created.created_at, created.updated_at, twin.id]);
      }
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
  // BENCH_FIELDS_CACHE=off serves with the decryption cache turned off (--decryption-cache 0).
  const cacheOff = process.env.BENCH_FIELDS_CACHE === 'off';
  const contender = (name: string, table: string): Contender => ({
    name,
    label: `${table}`,
    async start() {
      const copy = join(mkdtempSync(join(tmpdir(), 'mfx-bench-fields-run-')), 'fields.db');
      copyFileSync(file, copy);
      const child = await startMfx(manifestDir, `sqlite:${copy}`, [], cacheOff ? ['--decryption-cache', '0'] : []);
      return { ...child, url: `${child.url}/${table}` };
    },
  });
  // The model with both kinds of field, each kind alone (the breakdown), and the plain twin every ratio is to.
  const contenders = [
    contender('fields', 'profiles'),
    contender('localized', 'localized_profiles'),
    contender('encrypted', 'encrypted_profiles'),
    contender('plain', 'plain_profiles'),
  ];
  const workloads: Workload[] = selected([
    { name: 'read by id', path: () => `/${pick()}` },
    { name: 'list of 20', path: () => `?limit=20&page=${1 + Math.floor(Math.random() * (ROWS / 20))}` },
  ]);
  console.log(`${ROWS} rows in each table; profiles: two encrypted fields (email, phone) and two localized ones (headline split, bio resolve);`);
  console.log(`localized_profiles and encrypted_profiles: one kind each; plain_profiles: plain strings. Decryption cache ${cacheOff ? 'OFF' : 'on (default)'}.`);
  for (const workload of workloads) {
    const row = await compare(workload, contenders);
    const plain = row.samples.get('plain')!;
    console.log(`\n${workload.name}`);
    console.log(`  CPU µs/req: ${contenders.map((c) => `${c.label} ${median(row.samples.get(c.name)!.map((s) => s.cpuUs)).toFixed(0)}`).join(', ')}`);
    for (const { name, label } of contenders.slice(0, -1)) {
      const samples = row.samples.get(name)!;
      const cpu = samples.map((s, i) => s.cpuUs / plain[i]!.cpuUs);
      const rps = samples.map((s, i) => s.rps / plain[i]!.rps);
      const goal = name === 'fields' && workload.name === 'list of 20' ? `   goal CPU/req ratio < ${GOAL}: ${median(cpu) < GOAL ? 'met' : 'MISSED'}` : '';
      console.log(`  ${label}/plain_profiles: CPU/req ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), req/s ${median(rps).toFixed(3)} (${Math.min(...rps).toFixed(3)}–${Math.max(...rps).toFixed(3)})${goal}`);
    }
    const errors = contenders.flatMap((c) => row.samples.get(c.name)!).reduce((n, s) => n + s.errors + s.non2xx, 0);
    if (errors) console.log(`  ${errors} errors or non-2xx answers`);
  }
}
