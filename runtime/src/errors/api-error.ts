import { type ErrorCode, errorCatalogue } from './catalogue.js';

export interface ValidationDetail {
  field: string;
  message: string;
}

/**
 * An error that answers the request with a catalogued code.
 *
 * Hooks throw it to end a request with a specific status:
 *
 * @example
 * throw new ApiError('FORBIDDEN', 'only editors may publish');
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message?: string, details?: unknown, headers?: Record<string, string>) {
    const entry = errorCatalogue[code];
    // 5xx text is always generic so no internal detail leaks to clients.
    super(entry.status >= 500 || !message ? entry.message : message);
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.details = details;
    this.headers = headers;
  }

  /** The error envelope. */
  toJSON(): { error: { code: string; message: string; details?: unknown } } {
    const error: { code: string; message: string; details?: unknown } = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export const isApiError = (value: unknown): value is ApiError => value instanceof ApiError;

/** Thrown when something is registered after the server sealed its routes and pipeline. */
export class RegistrationClosedError extends Error {
  constructor(what: string) {
    super(
      `mfx: cannot register ${what}: registration is closed because the handler was already built or the server started; register models, hooks and actions before app.handler() or app.start()`,
    );
    this.name = 'RegistrationClosedError';
  }
}

/** A configuration or startup mistake; the message says what to change. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(`mfx: ${message}`);
    this.name = 'ConfigError';
  }
}
