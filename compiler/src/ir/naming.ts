/**
 * Table names: snake_case of the model name with its last word pluralised.
 */

/**
 * Stems that keep their classical plural, also at the end of a longer word
 * (`BloodAnalysis` → `blood_analyses`, `Submatrix` → `submatrices`).
 */
const CLASSICAL_PLURALS: ReadonlyArray<readonly [singular: string, plural: string]> = [
  ['analysis', 'analyses'],
  ['basis', 'bases'],
  ['axis', 'axes'],
  ['diagnosis', 'diagnoses'],
  ['thesis', 'theses'],
  ['hypothesis', 'hypotheses'],
  ['datum', 'data'],
  ['medium', 'media'],
  ['matrix', 'matrices'],
  ['vertex', 'vertices'],
  ['criterion', 'criteria'],
  ['phenomenon', 'phenomena'],
];

/**
 * snake_case of a PascalCase or camelCase name; acronyms stay one word.
 *
 * @example snakeCase('BlogPost') // 'blog_post'
 * @example snakeCase('HTTPRequestLog') // 'http_request_log'
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/**
 * English plural of one lower-case word: the classical stems above, otherwise
 * the regular endings (no other irregular words).
 *
 * @example pluralize('category') // 'categories'
 * @example pluralize('hypothesis') // 'hypotheses'
 */
export function pluralize(word: string): string {
  for (const [singular, plural] of CLASSICAL_PLURALS) {
    if (word.endsWith(singular)) return word.slice(0, word.length - singular.length) + plural;
  }
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/**
 * The default table of a model: snake_case with the last word pluralised.
 *
 * @example tableName('BloodAnalysis') // 'blood_analyses'
 */
export function tableName(modelName: string): string {
  const words = snakeCase(modelName).split('_');
  words[words.length - 1] = pluralize(words[words.length - 1]);
  return words.join('_');
}
