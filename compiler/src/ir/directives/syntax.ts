/**
 * The `@mfx` tag syntax: `name`, `name:value`, `name:value;sub:option;…`,
 * separated by commas; whitespace around each part is trimmed.
 *
 * Commas and semicolons inside brackets, braces or double quotes do not
 * split, so `default:["a","b"]` and `default:"x, y"` stay one directive.
 */

export interface SubOption {
  key: string;
  /** Text after the first `:` or `=`, if any. */
  value?: string;
}

export interface DirectiveUse {
  name: string;
  /** Text after the first `:` of the directive, up to the first top-level `;`. */
  value?: string;
  /** The `;`-separated parts after the first one (relation and scheduled options). */
  options: SubOption[];
  /** Everything after the first `:`, semicolons included (for values such as `default:a;b`). */
  raw?: string;
  /** The directive as written, trimmed. */
  text: string;
}

export interface ParsedDirectives {
  uses: DirectiveUse[];
  /** Malformed pieces, each with an explanation. */
  problems: { text: string; message: string; hint?: string }[];
}

/**
 * Split the text of one or more `@mfx` tags into directives.
 *
 * @example
 * parseDirectives('relation:author;onDelete:cascade, filterable').uses
 * // [{ name: 'relation', value: 'author', options: [{ key: 'onDelete', value: 'cascade' }], … },
 * //  { name: 'filterable', options: [], … }]
 */
export function parseDirectives(text: string): ParsedDirectives {
  const result: ParsedDirectives = { uses: [], problems: [] };
  for (const piece of splitTopLevel(text, ',')) {
    const directive = piece.trim();
    if (directive === '') continue;
    const [head, ...rest] = splitTopLevel(directive, ';').map((part) => part.trim());
    const colon = head.indexOf(':');
    const name = (colon === -1 ? head : head.slice(0, colon)).trim();
    const value = colon === -1 ? undefined : head.slice(colon + 1).trim();
    if (name === '') {
      result.problems.push({ text: directive, message: `'${directive}' has no directive name` });
      continue;
    }
    if (/\s/.test(name)) {
      result.problems.push({
        text: directive,
        message: `'${name}' is not a directive name`,
        hint: 'Separate directives with commas',
      });
      continue;
    }
    const options = rest.filter((part) => part !== '').map(parseSubOption);
    const colonInDirective = directive.indexOf(':');
    const raw = colon === -1 ? undefined : directive.slice(colonInDirective + 1).trim();
    result.uses.push({ name, value, options, text: directive, ...(raw === undefined ? {} : { raw }) });
  }
  return result;
}

function parseSubOption(part: string): SubOption {
  const at = part.search(/[:=]/);
  return at === -1 ? { key: part } : { key: part.slice(0, at).trim(), value: part.slice(at + 1).trim() };
}

/** Split on a separator that is not inside `[]`, `{}` or a double-quoted string. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '[' || char === '{') {
      depth++;
    } else if ((char === ']' || char === '}') && depth > 0) {
      depth--;
    } else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
