// Model options.
import { adapterNameProblem, DEFAULT_ADAPTER, type QueryLimits } from '@mfx/runtime/manifest';
import { didYouMean } from '../../suggest.js';
import { type DirectiveRow, BASE_OPTIONS, type BaseOption, type BaseOptionColumn } from '../rule.js';
import { DirectiveProblem, parseChoice, parseInteger, parseList, parseNamedList } from '../values.js';
import { QUERY_LIMIT_KEYS, flag, text } from './shared.js';

export const modelOptionsRows: readonly DirectiveRow[] = [
  // ── Model options ────────────────────────────────────────────────────
  {
    name: 'soft_delete',
    summary: 'DELETE sets deleted_at (soft_delete) or is_deleted (soft_delete:flag)',
    docs: {
      syntax: ['soft_delete', 'soft_delete:flag'],
      text: '`DELETE` keeps the row and marks it: `deleted_at` (a timestamp) or, with `:flag`, `is_deleted` (a boolean). Marked rows are left out of reads, lists, includes, nested filters, search and `meta.total`; a second `DELETE` is 404. Unique values bind live rows only. The same as extending `SoftDelete` or `SoftDeleteFlag`.',
      example: `/** @mfx soft_delete */
export interface Note extends Model {
  title: string;
}

/** @mfx soft_delete:flag */
export interface Bookmark extends Model {
  url: string;
}`,
    },
    model: {
      parse: (use): 'timestamp' | 'boolean' => {
        if (use.value === undefined) return 'timestamp';
        parseChoice(use.value, ['flag'] as const);
        return 'boolean';
      },
      apply: (type: 'timestamp' | 'boolean', model) => {
        const column = type === 'boolean' ? 'is_deleted' : 'deleted_at';
        model.ir.options.softDelete = { field: column, column, type };
      },
    },
  },
  {
    name: 'singleton',
    summary: 'a single-row resource without id routes',
    docs: {
      text: 'A resource with exactly one record: `GET /<table>` and `PATCH /<table>` only (POST, DELETE and item routes are 405). The row is created on first access from the field defaults, so fields cannot be `required`.',
      example: `/** @mfx singleton, table:settings */
export interface SiteSettings extends Model {
  /** @mfx default:"My site" */
  siteName: string;
  /** @mfx default:true */
  signupOpen: boolean;
}`,
    },
    model: { parse: flag, apply: (_, model) => void (model.ir.options.singleton = true) },
  },
  {
    name: 'headless',
    summary: 'registered and migrated, but no routes',
    docs: {
      text: 'The model is registered and migrated, and gets no routes: a table the app reads and writes itself (hooks, actions, SQL).',
      example: `/** @mfx headless */
export interface LoginAttempt extends Model {
  email: string;
  succeeded: boolean;
}`,
    },
    model: { parse: flag, apply: (_, model) => void (model.ir.options.headless = true) },
  },
  {
    name: 'aggregate',
    summary: 'mount the aggregate route',
    docs: {
      text: "Mounts `GET /<table>/aggregate?aggregate=<url-encoded JSON>`: grouped counts, sums, averages, minimums and maximums over the list's filters, run as the list operation (see [aggregates](aggregates.md)).",
      example: `/** @mfx aggregate */
export interface Sale extends Model {
  /** @mfx filterable */
  region: string;
  amount: number;
}`,
    },
    model: { parse: flag, apply: (_, model) => void (model.ir.options.aggregate = true) },
  },
  {
    name: 'export',
    summary: 'mount the export route',
    docs: {
      text: "Mounts `GET /<table>/export?format=csv|xlsx`: every row the list's `filter`, `filter[N]`, `q` and `sort` select, streamed from the database as CSV (default) or XLSX, under the list operation's hooks (see [export](export.md)).",
      example: `/** @mfx export */
export interface Subscriber extends Model {
  email: string;
}`,
    },
    model: { parse: flag, apply: (_, model) => void (model.ir.options.export = true) },
  },
  {
    name: 'export_max',
    summary: 'export row cap (default 100000)',
    docs: {
      syntax: ['export_max:N'],
      text: 'The most rows one export may hold (100,000 by default); more answer 413 `EXPORT_TOO_LARGE` before any byte is sent.',
      example: `/** @mfx export, export_max:5000 */
export interface Donation extends Model {
  amount: number;
}`,
    },
    model: {
      parse: (use) => parseInteger(text(use, 'N'), 1),
      apply: (rows: number, model) => void (model.ir.options.maxExportRows = rows),
    },
  },
  {
    name: 'global_search',
    summary: 'include the model in GET {prefix}/search',
    docs: {
      text: "Includes the model in the global search `GET {prefix}/search?q=&limit=&models=` (see [search](search.md)): its `searchable` fields are searched with the full-text index that `q` uses, live rows only, under the Auth-step and scope hooks of the model's list operation. The model needs at least one searchable field.",
      example: `/** @mfx global_search */
export interface NewsItem extends Model {
  /** @mfx searchable */
  title: string;
  /** @mfx searchable */
  body: string;
}`,
    },
    model: {
      parse: flag,
      apply: (_, model) => void (model.ir.options.globalSearch = true),
      check: (_, model, report) => {
        if (model.ir.fields.some((f) => f.searchable && f.type === 'string' && !f.hidden && !f.writeonly)) return;
        report(`global_search on ${model.ir.name} needs a searchable field`, `Add 'searchable' to the @mfx of a visible text field of ${model.ir.name}, or drop global_search`);
      },
    },
  },
  {
    name: 'optimistic_lock',
    summary: 'If-Match / ETag control on PATCH and DELETE',
    docs: {
      text: 'Every single-record response carries an `ETag`; `PATCH` and `DELETE` with `If-Match` compare it with the current record inside a transaction that locks the row: a stale tag is 412 `PRECONDITION_FAILED`, `*` needs the record to exist, no header means no check.',
      example: `/** @mfx optimistic_lock */
export interface Memo extends Model {
  title: string;
  body: string;
}`,
    },
    model: { parse: flag, apply: (_, model) => void (model.ir.options.optimisticLock = true) },
  },
  {
    name: 'adapter',
    summary: 'route the model to a named database adapter',
    docs: {
      syntax: ['adapter:NAME'],
      text: "Serves the model from the database adapter registered under NAME with `app.setDB(adapter, { name: 'NAME' })` (NAME: a letter, then letters, digits, `_` or `-`, at most 63 characters): its reads, writes, transactions, history table and migration all run there, and `/ready` pings it as `db:NAME`. `adapter:default` is the adapter `app.setDB(adapter)` sets; system tables (idempotency keys, outbox, jobs) stay there. A model whose adapter was never registered is a startup error, and so is a relation or include between models on two adapters: mfx does not join across databases. See [per-model databases](deployment.md#per-model-databases).",
      example: `/** @mfx adapter:analytics */
export interface PageView extends Model {
  path: string;
}`,
    },
    model: {
      parse: (use) => {
        const name = text(use, 'NAME');
        const problem = adapterNameProblem(name);
        if (problem) throw new DirectiveProblem(`'${name}' is not an adapter name`, `Write adapter:NAME where ${problem}`);
        return name === DEFAULT_ADAPTER ? null : name;
      },
      apply: (name: string | null, model) => void (model.ir.options.adapter = name),
    },
  },
  {
    name: 'query_limits',
    summary: 'per-model query complexity caps: query_limits:maxFilters=10|maxSorts=2',
    docs: {
      syntax: ['query_limits:KEY=N|KEY=N'],
      text: `Caps on the complexity of this model's list queries, overriding the server's \`queryLimits\` for the keys given. The keys are those of \`queryLimits\` (see [configuration](configuration.md)): ${QUERY_LIMIT_KEYS.map((key) => `\`${key}\``).join(', ')}. A request over a cap is 400 \`INVALID_QUERY\` (\`INVALID_AGGREGATE\` for the \`aggregate*\` caps of the aggregate route).`,
      example: `/** @mfx query_limits:maxFilters=4|maxSorts=1 */
export interface AuditTrail extends Model {
  /** @mfx filterable, sortable */
  action: string;
}`,
    },
    model: {
      parse: (use) => {
        const limits: Partial<QueryLimits> = {};
        for (const entry of parseList(text(use, 'KEY=N|KEY=N'))) {
          const [key, value] = entry.split('=').map((s) => s.trim());
          if (!(QUERY_LIMIT_KEYS as readonly string[]).includes(key)) {
            throw new DirectiveProblem(
              `'${key}' is not a query limit`,
              didYouMean(key, QUERY_LIMIT_KEYS) ?? `Known limits: ${QUERY_LIMIT_KEYS.join(', ')}`,
            );
          }
          limits[key as keyof QueryLimits] = parseInteger(value ?? '', 1);
        }
        return limits;
      },
      repeatable: true,
      apply: (limits: Partial<QueryLimits>, model) => void Object.assign(model.ir.options.queryLimits, limits),
    },
  },
  {
    name: 'base',
    summary: 'opt-in options for base columns: base:created_at=filterable|sortable',
    docs: {
      syntax: ['base:COLUMN=opt|opt'],
      text: `Opts the base columns that every model has (\`id\`, \`created_at\`, \`updated_at\`) options they lack by default. ${Object.entries(BASE_OPTIONS).map(([column, options]) => `\`${column}\` takes ${options.map((o) => `\`${o}\``).join(', ')}.`).join(' ')} Repeat the directive for each column.`,
      example: `/** @mfx base:created_at=filterable|sortable, base:id=filterable */
export interface Comment extends Model {
  body: string;
}`,
    },
    model: {
      parse: (use) => {
        const { name, items } = parseNamedList(text(use, 'COLUMN=opt|opt'));
        if (!(name in BASE_OPTIONS)) {
          throw new DirectiveProblem(`'${name}' is not a base column`, `base: applies to ${Object.keys(BASE_OPTIONS).join(', ')}`);
        }
        const column = name as BaseOptionColumn;
        const accepted: readonly string[] = BASE_OPTIONS[column];
        const bad = items.find((item) => !accepted.includes(item));
        if (bad) {
          const hint = didYouMean(bad, accepted);
          throw new DirectiveProblem(
            `'${bad}' is not a base option of ${column}`,
            `${column} accepts ${accepted.join(', ')}${hint ? `. ${hint}` : ''}`,
          );
        }
        return { column, options: items as BaseOption[] };
      },
      repeatable: true,
      apply: ({ column, options }: { column: BaseOptionColumn; options: BaseOption[] }, model) => {
        for (const option of options) model.base[column].add(option);
      },
    },
  },
];
