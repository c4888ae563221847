/**
 * JSDoc reading: the description and the text of every `@mfx` tag.
 *
 * The raw comment is parsed here rather than through TypeScript's JSDoc
 * tags, because `@mfx` may also follow text on the same line
 * (`/** Display name. @mfx required *\/`), which TypeScript does not treat
 * as a tag.
 */
import type { JSDocableNode } from 'ts-morph';

export interface DocComment {
  /** Text before the first tag, trimmed; undefined when empty. */
  description?: string;
  /** Text of each `@mfx` tag, continuation lines joined with a space. */
  directives: string[];
}

/** A tag at the start of a line, or `@mfx` anywhere after whitespace. */
const TAG = /(^|\n)[ \t]*@([A-Za-z][\w-]*)|(^|[ \t])@(mfx)(?=\s|$)/g;

/**
 * Parse one `/** … *\/` comment.
 *
 * @example
 * parseDocComment('/** Display name. @mfx required, minlen:2 *\/')
 * // { description: 'Display name.', directives: ['required, minlen:2'] }
 */
export function parseDocComment(raw: string): DocComment {
  const body = raw
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*\*(?!\/) ?/, '').trimEnd())
    .join('\n');

  const tags: { name: string; start: number; end: number }[] = [];
  for (const match of body.matchAll(TAG)) {
    const name = match[2] ?? match[4];
    const end = match.index + match[0].length;
    tags.push({ name, start: end - name.length - 1, end });
  }

  const descriptionEnd = tags.length > 0 ? tags[0].start : body.length;
  const description = tidy(body.slice(0, descriptionEnd));
  const directives = tags
    .map((tag, i) => ({ tag, text: body.slice(tag.end, i + 1 < tags.length ? tags[i + 1].start : body.length) }))
    .filter(({ tag }) => tag.name === 'mfx')
    .map(({ text }) => text.split('\n').map((line) => line.trim()).filter(Boolean).join(' '));
  return { ...(description ? { description } : {}), directives };
}

/** Trim every line, drop leading and trailing blank lines. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/^\n+|\n+$/g, '')
    .trim();
}

/** The merged doc comments of a declaration (TypeScript attaches every `/** *\/` block just before it). */
export function readDocs(node: JSDocableNode): DocComment {
  const docs = node.getJsDocs().map((doc) => parseDocComment(doc.getText()));
  const descriptions = docs.map((d) => d.description).filter((d): d is string => d !== undefined);
  return {
    ...(descriptions.length ? { description: descriptions.join('\n\n') } : {}),
    directives: docs.flatMap((d) => d.directives),
  };
}
