// The seeded database of the fields benchmark (issue 17), shared by bench/fields.bench.ts and
// bench/instructions.ts: fixtures/fields' profiles (two encrypted fields, two localized ones), each
// kind alone (localized_profiles, encrypted_profiles) and the plain twin (plain_profiles), every
// table holding the same ROWS rows under the same ids.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, loadManifest, openSqlite, silentLogger, staticKeyProvider } from '@mfx/runtime';
import { fixtureManifestDir } from '../../test/support/fixtures.js';

export const ROWS = 1000;

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

export interface SeededFields {
  manifestDir: string;
  /** The seeded SQLite file (copy it for each server). */
  file: string;
  ids: string[];
}

/**
 * Seeds the fields fixture under fresh keys and puts the keys in this
 * process's environment as MFX_KEY_* variables, where a spawned `mfx serve`
 * reads them, as in production.
 */
export async function seededFields(): Promise<SeededFields> {
  const manifestDir = await fixtureManifestDir('fields');
  const keys = { default: randomBytes(32), payments: randomBytes(32), index: randomBytes(32) };
  for (const [id, key] of Object.entries(keys)) process.env[`MFX_KEY_${id.toUpperCase()}`] = key.toString('base64');
  const { file, ids } = await seeded(manifestDir, keys);
  return { manifestDir, file, ids };
}

/** A request of the fields benchmark on one table: a list of 20 at a random page, or a random record by id. */
export function fieldsPath(kind: 'list' | 'read', table: string, ids: readonly string[]): () => string {
  return kind === 'list' ? () => `/${table}?limit=20&page=${1 + Math.floor(Math.random() * (ROWS / 20))}` : () => `/${table}/${ids[Math.floor(Math.random() * ids.length)]}`;
}
