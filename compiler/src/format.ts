/**
 * Diagnostics as the command line prints them: `file:line:col: error: message`.
 */
import { relative, sep } from 'node:path';
import { type Diagnostic, diagnosticText } from './ir/diagnostics.js';

/**
 * One line per diagnostic, with the path relative to `cwd`.
 *
 * @example formatDiagnostic(d, '/app') // 'models.ts:12:3: error: Post.title: …'
 */
export function formatDiagnostic(diagnostic: Diagnostic, cwd: string): string {
  const where = diagnostic.span
    ? `${relative(cwd, diagnostic.span.file).split(sep).join('/')}:${diagnostic.span.line}:${diagnostic.span.col}: `
    : 'mfx: ';
  return `${where}${diagnostic.severity}: ${diagnosticText(diagnostic)}`;
}
