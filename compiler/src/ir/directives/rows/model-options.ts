// Model options.
import type { QueryLimits } from '@mfx/runtime/manifest';
import { didYouMean } from '../../suggest.js';
import { type DirectiveRow, BASE_OPTIONS, type BaseOption, type BaseOptionColumn } from '../rule.js';
import { DirectiveProblem, parseChoice, parseInteger, parseList, parseNamedList } from '../values.js';
import { QUERY_LIMIT_KEYS, flag, text } from './shared.js';

export const modelOptionsRows: readonly DirectiveRow[] = [
  // ── Model options ────────────────────────────────────────────────────
  {
    name: 'soft_delete',
    summary: 'DELETE sets deleted_at (soft_delete) or is_deleted (soft_delete:flag)',
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
    model: { parse: flag, apply: (_, model) => void (model.ir.options.singleton = true) },
  },
  {
    name: 'headless',
    summary: 'registered and migrated, but no routes',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.headless = true) },
  },
  {
    name: 'aggregate',
    summary: 'mount the aggregate route',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.aggregate = true) },
  },
  {
    name: 'export',
    summary: 'mount the export route',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.export = true) },
  },
  {
    name: 'export_max',
    summary: 'export row cap (default 100000)',
    model: {
      parse: (use) => parseInteger(text(use, 'N'), 1),
      apply: (rows: number, model) => void (model.ir.options.maxExportRows = rows),
    },
  },
  {
    name: 'optimistic_lock',
    summary: 'If-Match / ETag control on PATCH and DELETE',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.optimisticLock = true) },
  },
  {
    name: 'adapter',
    summary: 'route the model to a named database adapter',
    model: { parse: (use) => text(use, 'NAME'), apply: (name: string, model) => void (model.ir.options.adapter = name) },
  },
  {
    name: 'query_limits',
    summary: 'per-model query complexity caps: query_limits:maxFilters=10|maxSorts=2',
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
