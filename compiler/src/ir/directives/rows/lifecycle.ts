// History, scheduled transitions, localized strings and pagination.
import type { LocaleMode } from '@mfx/runtime/manifest';
import { didYouMean } from '../../suggest.js';
import type { DirectiveRow } from '../rule.js';
import { castLiteral, DirectiveProblem, parseChoice } from '../values.js';
import { LOCALE_MODES, flag, text, localeCode, ensureLocale, localeModeRow, setVersioned, setCursor, resolveCursor, scheduledAction } from './shared.js';

export const lifecycleRows: readonly DirectiveRow[] = [
  // ── History ──────────────────────────────────────────────────────────
  {
    name: 'versioned',
    summary: 'keep change history in {model}_history; versioned:diff_only stores diffs only',
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
    field: {
      parse: scheduledAction,
      options: true,
      types: ['timestamp'],
      typeHints: Object.fromEntries(
        (['string', 'number', 'integer', 'bigint', 'boolean', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'The runner fires when the time passes, so declare the field as Date | null',
        ]),
      ),
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
        try {
          const to = castLiteral(String(action.to), target.type, target.nullable);
          const from = action.from === undefined ? undefined : castLiteral(String(action.from), target.type, target.nullable);
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
    model: {
      parse: (use) => parseChoice(text(use, 'split'), LOCALE_MODES),
      apply: (mode: LocaleMode, model) => void (model.ir.options.localeMode = mode),
    },
  },

  // ── Pagination ───────────────────────────────────────────────────────
  {
    name: 'cursor_field',
    summary: 'keyset pagination field; it must be sortable',
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
