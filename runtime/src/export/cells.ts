/**
 * The cells of an export: one value of a record as the text of a CSV cell
 * or the value of an XLSX cell, and the CSV line of a row. One place for
 * the rules both formats share (null is an empty cell, objects are JSON)
 * and for the CSV formula-injection guard.
 */

/** A cell holding one of these is quoted (RFC 4180). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A value as a cell's text: null and absent are empty, text as it is,
 * numbers and booleans as JSON writes them, big integers in full, arrays
 * and objects as JSON.
 *
 * @example
 * cellText(['a', 'b']); // '["a","b"]'
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return value instanceof Date ? value.toISOString() : JSON.stringify(value);
  }
}

/**
 * One CSV cell: text that a spreadsheet would take for a formula (it starts
 * with =, +, -, @, a tab or a carriage return: OWASP's list) gets a leading `'`, which
 * spreadsheets show as text and never evaluate; then RFC 4180 quoting (a
 * cell holding a comma, a quote, CR or LF is quoted, its quotes doubled).
 * Numbers are written as they are: only text can carry a formula.
 *
 * @example
 * csvCell('=HYPERLINK("http://x")'); // '"\'=HYPERLINK(""http://x"")"'
 * csvCell(-5); // '-5'
 */
export function csvCell(value: unknown): string {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string': {
      const first = value.charCodeAt(0);
      const text = first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13 ? `'${value}` : value;
      return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    }
    default: {
      const text = cellText(value);
      return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    }
  }
}

/** One CSV record, CRLF-terminated (RFC 4180). */
export function csvLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvCell(values[i]);
  return `${line}\r\n`;
}

/**
 * An XLSX cell value: text stays a string cell (a string cell is never
 * evaluated, so no formula guard is needed), numbers and booleans keep their
 * type, a big integer outside the exact range of a double is text, objects
 * are JSON text.
 */
export function xlsxCell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : String(value);
  return cellText(value);
}
