/**
 * Compile diagnostics: every problem is collected with its location and
 * reported together, so one build shows every mistake instead of the first.
 */

/** Where something was declared: an absolute file path plus a 1-based line and column. */
export interface Span {
  file: string;
  line: number;
  col: number;
  /** 0-based character offset and length, for editors and TypeScript diagnostics. */
  start: number;
  length: number;
}

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** What went wrong, naming the model, the property and the directive. */
  message: string;
  /** How to fix it. */
  hint?: string;
  /** Absent for problems that belong to no source position (a missing entry file, for example). */
  span?: Span;
}

/** The full text of a diagnostic: the message followed by its hint. */
export function diagnosticText(diagnostic: Diagnostic): string {
  return diagnostic.hint ? `${diagnostic.message}. ${diagnostic.hint}` : diagnostic.message;
}

/**
 * Collects diagnostics while the compiler walks the models.
 *
 * @example
 * const bag = new DiagnosticBag();
 * bag.error(span, 'Post.title: `min` needs a number field', 'Use `minlen:N` on strings');
 * bag.hasErrors(); // true
 */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];

  error(span: Span | undefined, message: string, hint?: string): void {
    this.items.push({ severity: 'error', message, ...(hint ? { hint } : {}), ...(span ? { span } : {}) });
  }

  warning(span: Span | undefined, message: string, hint?: string): void {
    this.items.push({ severity: 'warning', message, ...(hint ? { hint } : {}), ...(span ? { span } : {}) });
  }

  hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  /** Diagnostics ordered by file and position (stable: same-place problems keep their check order). */
  sorted(): Diagnostic[] {
    return [...this.items].sort(
      (a, b) => compare(a.span?.file ?? '', b.span?.file ?? '') || (a.span?.start ?? -1) - (b.span?.start ?? -1),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
