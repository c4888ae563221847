/**
 * The value of JSON text a column holds; text that is not JSON (a stored
 * scalar left by older data) is the text itself.
 *
 * @example
 * jsonOrText('["a"]'); // ['a']
 * jsonOrText('Hello'); // 'Hello'
 */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
