/**
 * XLSX exports through exceljs's streaming WorkbookWriter: one sheet
 * `Data`, the header row, then each row committed (written out of the
 * workbook) as it comes. exceljs is an optional peer dependency loaded here,
 * by the first XLSX export: nothing else in the runtime imports it.
 */
import { PassThrough } from 'node:stream';
import { loadDriver } from '../db/drivers.js';
import { ConfigError } from '../errors/api-error.js';
import { xlsxCell } from './cells.js';

/** Whether exceljs can be loaded; false (and the ConfigError naming the package) when it is not installed. */
export function xlsxAvailable(): { ok: true } | { ok: false; error: ConfigError } {
  try {
    loadDriver('exceljs');
    return { ok: true };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, error };
    throw error;
  }
}

/**
 * The bytes of an XLSX workbook of `header` and the rows of `batches`, as
 * they are zipped. A batch is pulled only when the bytes of the earlier ones
 * have been taken: a slow client holds the writer back.
 * Returning early (a client that left) stops pulling rows and drops the
 * workbook unfinished.
 *
 * @example
 * ctx.respondStream(200, { source: xlsxChunks(['id', 'title'], rows), contentType: XLSX_TYPE });
 */
export async function* xlsxChunks(header: readonly string[], batches: AsyncIterable<readonly (readonly unknown[])[]>): AsyncGenerator<Buffer> {
  const exceljs = loadDriver('exceljs');
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  let failure: unknown = null;
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  out.on('error', (error) => (failure ??= error));
  const ended = new Promise<void>((resolve) => out.once('end', resolve));
  const workbook = new exceljs.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Data');
  /** Lets the zip compress what was committed, then hands its bytes on. */
  async function* flush(): AsyncGenerator<Buffer> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (failure) throw failure;
    if (chunks.length > 0) yield Buffer.concat(chunks.splice(0));
  }
  try {
    sheet.addRow([...header]).commit();
    for await (const batch of batches) {
      for (const row of batch) sheet.addRow(row.map(xlsxCell)).commit();
      yield* flush();
    }
    sheet.commit();
    await workbook.commit();
    await ended;
    if (failure) throw failure;
    if (chunks.length > 0) yield Buffer.concat(chunks.splice(0));
  } finally {
    out.destroy();
  }
}

/** The media type of an XLSX workbook. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
