/**
 * Key rotation: re-encrypts the encrypted fields of every row to one key id.
 * A preflight first opens every envelope and checks every blind index, and
 * changes nothing when one fails; then the rows are re-encrypted in batches
 * ordered by id, each batch one transaction. Values already under the new
 * key id are left alone, so a rerun (or `after`) resumes where an
 * interrupted run stopped. Values stored before the field was encrypted are
 * encrypted too. The server keeps serving meanwhile: the keyring holds the
 * old, new and index keys.
 */
import type { App } from '../../app.js';
import type { Executor, Row } from '../../db/adapter.js';
import { ConfigError } from '../../errors/api-error.js';
import type { ModelMeta } from '../../registry/model-meta.js';
import { SqlBuilder } from '../../sql/builder.js';
import { blindIndex, EnvelopeError, isEnvelope, open, parseEnvelope, seal } from './envelope.js';
import { type EncryptedField, encryptedFields } from './fields.js';
import type { Keyring } from './keyring.js';

export interface RotateOptions {
  /** The key id every value is re-encrypted to. */
  to: string;
  /** Model names to rotate; default every model with encrypted fields. */
  models?: readonly string[];
  /** Resume after this `lastId` of an earlier report (`Model:id`, or a bare id when one model is rotated). */
  after?: string;
  /** Run the preflight and report what would change; write nothing. */
  dryRun?: boolean;
  /** Rows per batch (one transaction each); default 500. */
  batchSize?: number;
  /** Called after every batch of the preflight and of the rotation; returning false stops after that batch (the report's lastId resumes). */
  onProgress?: (progress: RotateProgress) => void | boolean;
}

export interface RotateProgress {
  phase: 'preflight' | 'rotate';
  model: string;
  /** Rows seen (preflight) or rotated (rotate) so far, across models. */
  done: number;
  /** Rows the preflight found to rotate (0 while it runs). */
  total: number;
  lastId: string | null;
}

export interface RotateFailure {
  model: string;
  id: string;
  field: string;
  reason: string;
}

export interface RotateReport {
  /** Rows re-encrypted (or, on a dry run or a failed preflight, that would be). */
  rows: number;
  /** Field values re-encrypted (or that would be). */
  fields: number;
  failures: RotateFailure[];
  /** `Model:id` of the last row rotated, for `after`; null when nothing was. */
  lastId: string | null;
  /** Whether every row is now under the new key id (false: dry run, failed preflight, or stopped early). */
  complete: boolean;
}

const DEFAULT_BATCH = 500;

interface Target {
  model: ModelMeta;
  fields: EncryptedField[];
  after: string | null;
}

/** The models to rotate, each with the id it starts after. */
function targets(app: App, options: RotateOptions): Target[] {
  const all = app.registry.all().filter((m) => encryptedFields(m).length > 0);
  let chosen = all;
  if (options.models) {
    chosen = options.models.map((name) => {
      const model = app.registry.all().find((m) => m.name === name);
      if (!model) throw new ConfigError(`rotate-keys: no model named ${name}; models with encrypted fields: ${all.map((m) => m.name).join(', ') || 'none'}`);
      if (!all.includes(model)) throw new ConfigError(`rotate-keys: ${name} has no encrypted fields`);
      return model;
    });
  }
  let start = 0;
  let after: string | null = null;
  if (options.after !== undefined) {
    const colon = options.after.indexOf(':');
    if (colon < 0) {
      if (chosen.length !== 1) throw new ConfigError(`rotate-keys: --after ${options.after} names no model; give the report's lastId (Model:id) when several models are rotated`);
      after = options.after;
    } else {
      const name = options.after.slice(0, colon);
      start = chosen.findIndex((m) => m.name === name);
      if (start < 0) throw new ConfigError(`rotate-keys: --after names ${name}, which is not rotated`);
      after = options.after.slice(colon + 1);
    }
  }
  return chosen.slice(start).map((model, i) => ({ model, fields: encryptedFields(model), after: i === 0 ? after : null }));
}

/** A batch of rows after `after`, ordered by id: the id, each encrypted column and each blind index. */
async function batch(db: Executor, target: Target, after: string | null, limit: number, lock: boolean): Promise<Row[]> {
  const sql = new SqlBuilder(db.dialect).text('SELECT ').id('id');
  for (const { field, companion } of target.fields) {
    sql.text(', ').id(field.column);
    if (companion) sql.text(', ').id(companion);
  }
  sql.text(' FROM ').id(target.model.table);
  if (after !== null) sql.text(' WHERE ').id('id').text(' > ').value(after);
  sql.text(' ORDER BY ').id('id').text(' LIMIT ').value(limit);
  if (lock) sql.text(db.dialect.lockRowsClause);
  return db.all(sql.sql, sql.params);
}

/** What one stored value needs: nothing, re-encryption of this plaintext, or a failure. */
async function inspect(keyring: Keyring, to: string, stored: unknown, hmac: unknown, encrypted: EncryptedField): Promise<{ plaintext: string } | { reason: string } | null> {
  if (stored === null || stored === undefined) return null;
  const text = String(stored);
  let plaintext = text;
  let keyId: string | null = null;
  if (isEnvelope(text)) {
    try {
      keyId = parseEnvelope(text).keyId;
      await keyring.ensure(keyId);
      plaintext = open(text, (id) => keyring.key(id));
    } catch (error) {
      if (error instanceof EnvelopeError) return { reason: error.reason };
      throw error;
    }
  }
  if (encrypted.companion) {
    const expected = blindIndex(plaintext, keyring.indexKey!);
    // A value stored in clear gets its blind index with its envelope; an envelope must already have the right one.
    if (keyId !== null && hmac !== expected) return { reason: 'the blind index does not match the value' };
  }
  return keyId === to ? null : { plaintext };
}

/**
 * Re-encrypts every encrypted field to the key id `to`.
 *
 * @example
 * const report = await rotateKeys(app, { to: 'k-2026', onProgress: (p) => console.error(p.done, '/', p.total) });
 * if (!report.complete) console.error('resume with', report.lastId, report.failures);
 */
export async function rotateKeys(app: App, options: RotateOptions): Promise<RotateReport> {
  const keyring = await app.keyring();
  if (!keyring) throw new ConfigError('rotate-keys needs a key provider (MFX_KEY_* variables for mfx rotate-keys, keyProvider in code)');
  if (!(await keyring.ensure(options.to))) throw new ConfigError(`rotate-keys: the key provider has no key with id "${options.to}"`);
  const list = targets(app, options);
  if (list.some((t) => t.fields.some((f) => f.companion)) && !(await keyring.ensure(keyring.indexKeyId))) {
    throw new ConfigError(`rotate-keys: encrypted,unique fields need the blind-index key "${keyring.indexKeyId}"`);
  }
  const limit = options.batchSize ?? DEFAULT_BATCH;
  const report: RotateReport = { rows: 0, fields: 0, failures: [], lastId: null, complete: false };

  // Preflight: every envelope opened, every blind index checked, nothing changed.
  let seen = 0;
  for (const target of list) {
    for (let after = target.after; ; ) {
      const rows = await batch(app.adapterOf(target.model), target, after, limit, false);
      if (rows.length === 0) break;
      for (const row of rows) {
        let changes = 0;
        for (const encrypted of target.fields) {
          const need = await inspect(keyring, options.to, row[encrypted.field.column], encrypted.companion && row[encrypted.companion], encrypted);
          if (need && 'reason' in need) report.failures.push({ model: target.model.name, id: String(row.id), field: encrypted.field.name, reason: need.reason });
          else if (need) changes++;
        }
        if (changes > 0) (report.rows++, (report.fields += changes));
      }
      seen += rows.length;
      after = String(rows.at(-1)!.id);
      options.onProgress?.({ phase: 'preflight', model: target.model.name, done: seen, total: 0, lastId: null });
    }
  }
  if (report.failures.length > 0 || options.dryRun) return report;

  // Rotation: batches by id, each in one transaction, rows locked where the database can.
  const total = report.rows;
  report.rows = 0;
  report.fields = 0;
  for (const target of list) {
    for (let after = target.after; ; ) {
      const done = await app.adapterOf(target.model).transaction(async (tx) => {
        const rows = await batch(tx, target, after, limit, true);
        for (const row of rows) {
          const sql = new SqlBuilder(tx.dialect).text('UPDATE ').id(target.model.table).text(' SET ');
          let changes = 0;
          for (const encrypted of target.fields) {
            const need = await inspect(keyring, options.to, row[encrypted.field.column], encrypted.companion && row[encrypted.companion], encrypted);
            if (!need) continue;
            if ('reason' in need) {
              // Changed since the preflight (a request wrote it meanwhile): reported, the row's other fields still rotate.
              report.failures.push({ model: target.model.name, id: String(row.id), field: encrypted.field.name, reason: need.reason });
              continue;
            }
            if (changes++ > 0) sql.text(', ');
            sql.id(encrypted.field.column).text(' = ').value(seal(need.plaintext, options.to, keyring.key(options.to)!));
            if (encrypted.companion) sql.text(', ').id(encrypted.companion).text(' = ').value(blindIndex(need.plaintext, keyring.indexKey!));
          }
          if (changes === 0) continue;
          await tx.run(sql.text(' WHERE ').id('id').text(' = ').value(row.id).sql, sql.params);
          report.rows++;
          report.fields += changes;
        }
        return rows;
      });
      if (done.length === 0) break;
      after = String(done.at(-1)!.id);
      report.lastId = `${target.model.name}:${after}`;
      const go = options.onProgress?.({ phase: 'rotate', model: target.model.name, done: report.rows, total, lastId: report.lastId });
      if (go === false) return report;
    }
  }
  report.complete = report.failures.length === 0;
  return report;
}
