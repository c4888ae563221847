/**
 * `GET /<table>/export` (spec, Optional model routes; DESIGN.md, Export):
 * every row the list's `filter`, `filter[N]`, `q` and `sort` select, as CSV
 * (default) or XLSX, streamed from the database to the client with
 * backpressure. It runs as the list operation (the list's hooks, tenancy and
 * force filters apply), refuses more rows than the model's `export_max`
 * before any byte (413), and holds one of the server's export slots while it
 * runs (503 when none is free).
 */
import { mapDbError } from '../db/errors.js';
import { rowBatches } from '../db/iterate.js';
import { ApiError } from '../errors/api-error.js';
import type { RequestLocale } from '../locale/request.js';
import { localizeQuery } from '../locale/query.js';
import type { Context } from '../pipeline/context.js';
import { type StepDefaults, straight } from '../pipeline/pipeline.js';
import { parseListQuery } from '../query/parse.js';
import type { ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { codecOf } from '../store/codec.js';
import type { ModelStore } from '../store/model-store.js';
import { csvLine } from './cells.js';
import type { ExportSlots } from './slots.js';
import { XLSX_TYPE, xlsxAvailable, xlsxChunks } from './xlsx.js';

/** A table that grew past export_max after its count: the response is cut (not a database failure). */
class ExportOverflow extends Error {}

/** The formats of `format=`, with their file extension and media type. */
export const EXPORT_FORMATS = {
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
  xlsx: { extension: 'xlsx', contentType: XLSX_TYPE },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** List parameters an export refuses: it holds every selected row, unpaged, with every exported field. */
const REFUSED_PARAMETERS = ['page', 'limit', 'cursor', 'include', 'select'];

/** Rows read per batch (a PostgreSQL cursor fetch, a SQLite step run), handed to the format together. */
const BATCH_ROWS = 500;

/** CSV text is handed on in pieces of about this many characters. */
const CSV_CHUNK = 64 * 1024;

/** The byte-order mark that tells spreadsheets a CSV file is UTF-8. */
const BOM = '\uFEFF';

export interface ExportDeps {
  slots: ExportSlots;
  /** The request's locale for localized fields, or null (the list's own rule). */
  localeOf(ctx: Context): RequestLocale | null;
}

/** The file name of an export: `<table>-<YYYYMMDD-HHMMSS>.<ext>`, UTC. */
export function exportFileName(table: string, format: ExportFormat, at = new Date()): string {
  const stamp = at.toISOString().replace(/\.\d+Z$/, '').replaceAll('-', '').replaceAll(':', '').replace('T', '-');
  return `${table}-${stamp}.${EXPORT_FORMATS[format].extension}`;
}

const formats = new WeakMap<Context, ExportFormat>();

/**
 * The default steps of the export route of `model` (its hooks are the list
 * operation's).
 *
 * @example
 * case 'export': return exportDefaults(model, store, none, { slots, localeOf });
 */
export function exportDefaults(model: ModelMeta, store: ModelStore, none: StepDefaults, deps: ExportDeps): StepDefaults {
  const max = model.options.maxExportRows;
  // Visible and not encrypted: hidden, writeonly and encrypted fields (and their _hmac companions) never leave.
  const header = model.fieldsWith('recorded').map((f) => f.name);
  const { project } = codecOf(model, store.dialect.name);
  const narrow = 'narrow it with filter, filter[N] or q';

  // Localized fields take their text from the request's locale (the list's projection); other models need no projection.
  const localized = model.fields.some((f) => f.type === 'localized');

  /**
   * The selected rows as cell values in header order, a batch at a time as
   * the adapter reads them (`rowBatches`: one await per batch, not per row,
   * here and in the formats), at most `max` rows: a table that grew since
   * the count is cut.
   */
  async function* batchesOf(ctx: Context, query: ListQuery): AsyncGenerator<unknown[][]> {
    const locale = localized ? deps.localeOf(ctx) : null;
    const view = { select: null, locale, caller: ctx.identity };
    const { sql, params } = store.selectAll(query, ctx.scopeIfAny, max + 1);
    const width = header.length;
    let n = 0;
    try {
      // The chain has ended (and any transaction with it): the rows are read on the adapter.
      for await (const rows of rowBatches(ctx.adapter, sql, params, { signal: ctx.cancel, batchSize: BATCH_ROWS })) {
        // Rows past max: those up to it are written, then the response is cut.
        const take = Math.min(rows.length, max - n);
        n += take;
        const batch = new Array<unknown[]>(take);
        for (let r = 0; r < take; r++) {
          const decoded = store.decode(rows[r]);
          const record = locale ? project(decoded, view, false) : decoded;
          const cells = new Array<unknown>(width);
          for (let i = 0; i < width; i++) cells[i] = record[header[i]];
          batch[r] = cells;
        }
        if (take > 0) yield batch;
        if (take < rows.length) throw new ExportOverflow(`the export of ${model.table} grew past ${max} rows while it was written; the response was cut`);
      }
    } catch (error) {
      throw error instanceof ExportOverflow ? error : mapDbError(error, ctx.adapter.dialect, 'list');
    }
  }

  async function* csvChunks(batches: AsyncIterable<unknown[][]>): AsyncGenerator<string> {
    let pending = BOM + csvLine(header);
    for await (const batch of batches) {
      for (const row of batch) pending += csvLine(row);
      if (pending.length >= CSV_CHUNK) {
        yield pending;
        pending = '';
      }
    }
    yield pending;
  }

  return {
    ...none,
    deserialize: straight((ctx) => {
      const params = ctx.searchParamsIfAny;
      for (const name of params?.keys() ?? []) {
        if (REFUSED_PARAMETERS.includes(name)) {
          throw new ApiError('INVALID_QUERY', `${name} is not supported on exports: an export holds every row the filters select (at most ${max}) with every exported field; ${narrow}`);
        }
      }
      const format = params?.get('format') ?? 'csv';
      if (!Object.hasOwn(EXPORT_FORMATS, format)) {
        throw new ApiError('INVALID_FORMAT', `format "${format.slice(0, 40)}" is not an export format; use csv (the default) or xlsx`);
      }
      if (format === 'xlsx') {
        const xlsx = xlsxAvailable();
        if (!xlsx.ok) {
          ctx.log.error({ requestId: ctx.requestId, model: model.name, err: xlsx.error.message }, 'XLSX export refused');
          throw new ApiError('XLSX_NOT_INSTALLED');
        }
      }
      formats.set(ctx, format as ExportFormat);
      ctx.query = parseListQuery(model, params);
      const locale = deps.localeOf(ctx);
      if (locale) localizeQuery(model, ctx.query, locale);
    }),
    db: straight(async (ctx) => {
      // The slot is held from here until the response has ended, however it ends (dispatch runs afterResponse last).
      ctx.afterResponse(deps.slots.take());
      let total: number;
      try {
        total = await store.count(ctx.db, ctx.query!, { signal: ctx.cancel, scope: ctx.scopeIfAny });
      } catch (error) {
        throw mapDbError(error, ctx.db.dialect, ctx.op);
      }
      if (total > max) {
        throw new ApiError('EXPORT_TOO_LARGE', `the export would hold ${total} rows; exports of ${model.table} hold at most ${max}: ${narrow}`);
      }
      ctx.result = { total };
    }),
    response: straight((ctx) => {
      const format = formats.get(ctx) ?? 'csv';
      const rows = batchesOf(ctx, ctx.query!);
      ctx.respondStream(200, {
        source: format === 'xlsx' ? xlsxChunks(header, rows) : csvChunks(rows),
        contentType: EXPORT_FORMATS[format].contentType,
        headers: { 'Content-Disposition': `attachment; filename="${exportFileName(model.table, format)}"`, 'Cache-Control': 'no-store' },
      });
    }),
  };
}
