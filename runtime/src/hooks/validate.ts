/**
 * The `validate` namespace of ready-made Validate-step hooks (DESIGN.md,
 * "Validation and request-safety hooks"); each lives in its own module.
 */
import { requiredLocales } from '../locale/required.js';
import { atLeastOne, crossField, dateRange, forbidden, regex, requiredWhen } from './validate-rules.js';
import { unique } from './validate-unique.js';

/**
 * Validation hooks: registered at the validate step, judged together with
 * the directive rules (one 422 VALIDATION_ERROR; validate.unique's 409 and
 * requiredLocales' MISSING_LOCALE as stated on each).
 *
 * @example
 * app.use('validate', validate.requiredLocales({ field: 'title', locales: ['en'] }), { models: ['Article'] });
 * app.use('validate', validate.unique({ field: 'email' }), { models: ['User'] });
 * app.use('validate', validate.dateRange({ start: 'startsAt', end: 'endsAt' }), { models: ['Event'] });
 */
export const validate = {
  requiredLocales,
  unique,
  regex,
  forbidden,
  atLeastOne,
  crossField,
  dateRange,
  requiredWhen,
};
