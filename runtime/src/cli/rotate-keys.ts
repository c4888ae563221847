import { openDatabase } from '../db/open.js';
import { ConfigError } from '../errors/api-error.js';
import { silentLogger } from '../log/logger.js';
import { envKeyProvider, hasKeyVariables } from '../security/encryption/keys.js';
import { type RotateProgress, rotateKeys } from '../security/encryption/rotate.js';
import { commandApp } from './app-module.js';
import { commandLine, usageFailure } from './args.js';
import { endOnClosedPipe } from './process.js';
import { progressWriter, stopAfterBatch } from './progress.js';

/** A rotation step as a progress line: preflight checks fill no bar. */
const progressText = (p: RotateProgress) =>
  p.phase === 'preflight' ? `preflight: ${p.done} rows checked (${p.model})` : `rotated ${p.done}/${p.total} rows (${p.model})`;

/**
 * `mfx rotate-keys --manifest DIR --db URL --to KEYID [--models A,B]
 * [--after ID] [--dry-run]`: re-encrypts every encrypted field to the key
 * id `--to` with the keys of the MFX_KEY_* variables. Prints the report as
 * JSON on stdout, progress and a summary on stderr; exit 0 when every row is
 * under the new key (or the dry run found nothing wrong), 1 otherwise (a
 * failed preflight changes nothing; an interrupted run prints the --after
 * that resumes it). Ctrl-C stops after the current batch.
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  const line = commandLine('rotate-keys', argv);
  if (typeof line === 'number') return line;
  const { options } = line;
  if (!options.to) return usageFailure('rotate-keys', '--to KEYID is required: the key id every encrypted value is re-encrypted to');
  if (!hasKeyVariables(process.env)) throw new ConfigError('rotate-keys needs the keys: set MFX_KEY_<ID> variables (base64 of 32 bytes) for the old keys, the new one and the index key');
  // No --app module: the keys come from the environment only.
  const app = commandApp({}, options.manifest, { keyProvider: envKeyProvider() });
  const adapter = openDatabase(options.dbWriteUrl, app.registry);
  app.setDB(adapter);
  const signals = stopAfterBatch(process.stderr);
  const progress = progressWriter(process.stderr);
  try {
    await adapter.init(silentLogger);
    const report = await rotateKeys(app, {
      to: options.to,
      models: options.models,
      after: options.after,
      dryRun: options.dryRun,
      onProgress: (p) => (progress.show(progressText(p), p.phase === 'rotate' && p.total > 0 ? p.done / p.total : null), !signals.interrupted),
    });
    progress.end();
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    for (const f of report.failures) process.stderr.write(`failure: ${f.model} ${f.id} ${f.field}: ${f.reason}\n`);
    if (report.failures.length > 0 && report.lastId === null) process.stderr.write('the preflight failed: nothing was changed\n');
    else if (options.dryRun) process.stderr.write(`dry run: ${report.rows} rows (${report.fields} values) would be re-encrypted to "${options.to}"; nothing was changed\n`);
    else process.stderr.write(`re-encrypted ${report.rows} rows (${report.fields} values) to "${options.to}"\n`);
    if (!report.complete && !options.dryRun && report.lastId) process.stderr.write(`not finished: resume with --after ${report.lastId}\n`);
    return report.failures.length === 0 && (report.complete || options.dryRun) ? 0 : 1;
  } finally {
    signals.release();
    await adapter.close();
  }
}
