// Issue 17: what fields whose stored form differs from their wire form cost per request, on SQLite:
// read by id and a list of 20 on `profiles` (two encrypted fields, and two localized ones: headline
// split, bio resolve) beside `plain_profiles`, the same model with plain strings (fixtures/fields).
// Every table holds the same rows under the same ids, served by one `mfx serve` per round; the goal
// is under 15% added on the list of 20, judged on server CPU per request. localized_profiles and
// encrypted_profiles (one kind of field each) break the cost down. BENCH_FIELDS_CACHE=off turns the
// decryption cache off (docs/encryption.md).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROWS, seededFields } from './lib/fields.js';
import { compare, type Contender, selected, type Workload } from './lib/load.js';
import { median } from './lib/proc.js';
import { startMfx } from './lib/process.js';

const GOAL = 1.15;

export async function main(): Promise<void> {
  // mfx serve reads its keys from MFX_KEY_* variables, as in production (seededFields sets them).
  const { manifestDir, file, ids } = await seededFields();
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
