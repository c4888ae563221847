/**
 * The `validate` namespace of ready-made Validate-step hooks (DESIGN.md,
 * "Validation and request-safety hooks"); each lives in its own module.
 */
import { requiredLocales } from '../locale/required.js';

/**
 * @example
 * app.use('validate', validate.requiredLocales({ field: 'title', locales: ['en'] }), { models: ['Article'] });
 */
export const validate = {
  requiredLocales,
};
