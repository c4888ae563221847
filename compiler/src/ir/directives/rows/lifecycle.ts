// History, scheduled transitions, localized strings and pagination.
import type { LocaleMode } from '@mfx/runtime/manifest';
import { didYouMean } from '../../suggest.js';
import type { DirectiveRow } from '../rule.js';
import { castLiteral, DirectiveProblem, parseChoice } from '../values.js';
import { LOCALE_MODES, flag, text, localeCode, ensureLocale, localeModeRow, setVersioned, setCursor, resolveCursor, scheduledAction, hintOtherTypes } from './shared.js';

export const lifecycleRows: readonly DirectiveRow[] = [
  // ── History ──────────────────────────────────────────────────────────
  {
    name: 'versioned',
    summary: 'keep change history in {model}_history; versioned:diff_only stores diffs only',
    docs: {
      syntax: ['versioned', 'versioned:diff_only'],
      text: "Keeps the change history of every record in a `<table>_history` table, written in the same transaction as the change: each create, update and delete appends an entry with the diff (`{field: {old, new}}`) and, unless `diff_only`, a snapshot of the record. `GET /<table>/<id>/history` lists them, newest first. Hidden, writeonly and encrypted fields are never recorded. On a property it versions the whole model, as in the interface's `@mfx`.",
      example: `/** @mfx versioned */
export interface Policy extends Model {
  /** @mfx required */
  title: string;
  text: string;
}`,
    },
    field: {
      parse: (use) => use.value !== undefined && parseChoice(use.value, ['diff_only'] as const) === 'diff_only',
      apply: (diffOnly: boolean, { model }) => setVersioned(model, diffOnly),
    },
    model: {
      parse: (use) => use.value !== undefined && parseChoice(use.value, ['diff_only'] as const) === 'diff_only',
      apply: (diffOnly: boolean, model) => setVersioned(model, diffOnly),
    },
  },
  {
    name: 'versioned_required',
    summary: 'a failed history write fails the request',
    docs: {
      text: 'A failed history write fails the request (the change is rolled back); by default it is logged and the change stands. Needs `versioned`.',
      example: `/** @mfx versioned:diff_only, versioned_required */
export interface LedgerEntry extends Model {
  amount: number;
}`,
    },
    model: {
      parse: flag,
      apply: (_, model) => void (model.versionedRequired = true),
      check: (_, model, report) => {
        if (!model.versioned) report("'versioned_required' needs versioning", "Add 'versioned' to the model's @mfx");
      },
    },
  },

  // ── Scheduled transitions ────────────────────────────────────────────
  {
    name: 'scheduled',
    summary: 'a nullable timestamp that triggers soft-delete, hard-delete or a field change once passed',
    docs: {
      syntax: ['scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE', 'scheduled;field=NAME;from=OLD;to=NEW'],
      text: 'A nullable `Date` field that names a moment: once it has passed, the record is soft-deleted, deleted, or one of its fields is set (only while it still holds `from`, when given). `null` means nothing is scheduled. `soft-delete` needs a soft-delete model.',
      limits: 'The runner (`app.scheduler()`, on by default in `mfx serve`) sweeps every minute, so a transition fires up to one interval late. A set-field transition clears the scheduled time in the same write; a soft delete keeps it; a guarded row whose field no longer holds `from` is left untouched. See [scheduled transitions](scheduled.md).',
      example: `/** @mfx soft_delete */
export interface Announcement extends Model {
  text: string;
  /** @mfx scheduled;soft-delete */
  expiresAt: Date | null;
  /** @mfx enum:draft|live, default:draft */
  state: string;
  /** @mfx scheduled;field=state;from=draft;to=live */
  publishAt: Date | null;
}`,
    },
    field: {
      parse: scheduledAction,
      options: true,
      types: ['timestamp'],
      typeHints: hintOtherTypes(['timestamp'], 'The runner fires when the time passes, so declare the field as Date | null'),
      apply: (action: ReturnType<typeof scheduledAction>, { field }) => {
        if (!field.nullable) {
          throw new DirectiveProblem(
            "'scheduled' needs a nullable timestamp",
            'Declare the field as Date | null: null means nothing is scheduled',
          );
        }
        field.scheduled = action;
      },
      check: (action: ReturnType<typeof scheduledAction>, { model, field }, report) => {
        if (action.action === 'soft-delete' && !model.ir.options.softDelete) {
          report("'scheduled;soft-delete' needs a soft-delete model", "Add 'soft_delete' to the model's @mfx or extend SoftDelete");
        }
        if (action.action !== 'set-field') return;
        const target = model.ir.fields.find((f) => f.name === action.field && !f.base);
        if (!target) {
          const names = model.ir.fields.filter((f) => !f.base).map((f) => f.name);
          report(`'scheduled;field=${action.field}' names no field of ${model.ir.name}`, didYouMean(action.field, names));
          return;
        }
        if (target === field) {
          report(`'scheduled;field=${action.field}' names the scheduled field itself`, 'The runner clears the scheduled time once it sets the field; name another field');
          return;
        }
        try {
          const to = castLiteral(String(action.to), target.type, target.nullable);
          const from = action.from === undefined ? undefined : castLiteral(String(action.from), target.type, target.nullable);
          // An enum field only ever holds its members: a value outside them would be written by the runner, or never match.
          for (const [key, value] of [['to', to], ['from', from]] as const) {
            if (target.enum && value !== undefined && value !== null && !target.enum.includes(String(value))) {
              report(`'scheduled' ${key}=${String(value)} is not one of the enum values of ${target.name} (${target.enum.join(', ')})`, 'Use one of the enum values, or add it to the enum');
              return;
            }
          }
          field.scheduled = from === undefined ? { action: 'set-field', field: target.name, to } : { action: 'set-field', field: target.name, to, from };
        } catch (problem) {
          if (!(problem instanceof DirectiveProblem)) throw problem;
          report(`'scheduled' value for ${target.name} is invalid: ${problem.message}`, problem.hint);
        }
      },
    },
  },

  // ── Localized strings ────────────────────────────────────────────────
  localeModeRow('split'),
  localeModeRow('resolve'),
  localeModeRow('dynamic'),
  {
    name: 'default_locale',
    summary: 'default locale of a localized field, or of the whole model',
    docs: {
      syntax: ['default_locale:CODE'],
      text: "The locale whose text is used when the requested one is missing: on a localized property for that field, in the interface's `@mfx` for every localized field of the model.",
      example: `/** @mfx default_locale:en */
export interface Recipe extends Model {
  title: Localized;
  /** @mfx default_locale:fr */
  description: Localized;
}`,
    },
    field: {
      parse: localeCode,
      types: ['localized'],
      apply: (code: string, { field }) => void (ensureLocale(field).defaultLocale = code),
    },
    model: { parse: localeCode, apply: (code: string, model) => void (model.ir.options.defaultLocale = code) },
  },
  {
    name: 'locale_mode',
    summary: 'model-wide response mode of localized fields: split, resolve or dynamic',
    docs: {
      syntax: ['locale_mode:split|resolve|dynamic'],
      text: 'The response mode of every localized field of the model that does not name its own: `split`, `resolve` or `dynamic` (see those directives).',
      example: `/** @mfx locale_mode:resolve */
export interface Product extends Model {
  name: Localized;
}`,
    },
    model: {
      parse: (use) => parseChoice(text(use, 'split'), LOCALE_MODES),
      apply: (mode: LocaleMode, model) => void (model.ir.options.localeMode = mode),
    },
  },

  // ── Pagination ───────────────────────────────────────────────────────
  {
    name: 'cursor_field',
    summary: 'keyset pagination field; it must be sortable',
    docs: {
      syntax: ['cursor_field', 'cursor_field:NAME'],
      text: "The field that keyset pagination orders by (`?cursor=&limit=20`, then `meta.next_cursor`): on a property without a value, that property; in the interface's `@mfx`, the field named. It must be sortable (a base column after `base:created_at=sortable`).",
      example: `/** @mfx cursor_field:created_at, base:created_at=sortable */
export interface LogLine extends Model {
  message: string;
}

export interface Metric extends Model {
  /** @mfx cursor_field, sortable */
  sequence: Int;
}`,
    },
    field: {
      parse: (use) => use.value ?? null,
      apply: (name: string | null, { model, field }) => setCursor(model, name ?? field.name),
      check: (_, { model }, report) => resolveCursor(model, report),
    },
    model: {
      parse: (use) => text(use, 'NAME'),
      apply: (name: string, model) => setCursor(model, name),
      check: (_, model, report) => resolveCursor(model, report),
    },
  },
];
