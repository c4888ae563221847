import type { IncomingMessage, ServerResponse } from 'node:http';
import { type App, type Identity, markInProcess } from '@mfx/runtime';
import { inject } from 'light-my-request';

/** What an in-process call answered: its status and its JSON body (null when it sent none or not JSON). */
export interface ApiAnswer {
  status: number;
  body: ApiBody | null;
  /** The ETag of a read (optimistic locking), when the API sent one. */
  etag: string | null;
}

/** The API's envelope: `data` and `meta` on success, `error` otherwise. */
export interface ApiBody {
  data?: unknown;
  meta?: { total?: number; page?: number; limit?: number; pages?: number };
  error?: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

export interface ApiCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under the API prefix with its query string, e.g. `/posts?limit=20`. */
  path: string;
  body?: Record<string, unknown>;
  /** A body sent as it is (a multipart write with files) instead of `body`'s JSON. */
  raw?: { contentType: string; bytes: Buffer };
  identity: Identity | null;
  /** The admin request's Host, so host checks see what the browser sent. */
  host?: string;
  /** Sent as If-Match (an edit form's ETag on optimistic-lock models). */
  ifMatch?: string;
  /** Localized fields as their stored maps (`<field>_i18n`) whatever their mode: an edit form shows every locale. */
  localeMaps?: boolean;
}

/**
 * The panel's way to the service: each call goes through the app's own
 * request handler in this process (router, Auth, Deserialize, Validate,
 * Service, DB, Response), as the caller whose identity the gate found, so
 * every rule of the API applies exactly as over HTTP. No SQL is run here.
 * The request is marked in-process (`markInProcess`), which the API's
 * `csrf()` hook trusts: the panel checked its own double-submit token first.
 *
 * @example
 * const api = new InProcessApi(app);
 * const page = await api.call({ method: 'GET', path: '/posts?limit=20', identity });
 */
export class InProcessApi {
  private handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;

  constructor(private readonly app: App) {}

  async call(call: ApiCall): Promise<ApiAnswer> {
    const handler = (this.handler ??= this.app.handler());
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.host) headers.host = call.host;
    if (call.ifMatch) headers['if-match'] = call.ifMatch;
    let payload: string | Buffer | undefined;
    if (call.raw) {
      payload = call.raw.bytes;
      headers['content-type'] = call.raw.contentType;
    } else if (call.body !== undefined) {
      payload = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const response = await inject(
      (req, res) => {
        markInProcess(req, { identity: call.identity, localeMaps: call.localeMaps === true });
        handler(req, res);
      },
      { method: call.method, url: `${this.app.config.pathPrefix}${call.path}`, headers, ...(payload === undefined ? {} : { payload }) },
    );
    let body: ApiBody | null = null;
    if (response.payload && String(response.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        body = JSON.parse(response.payload) as ApiBody;
      } catch {
        body = null;
      }
    }
    const etag = response.headers.etag;
    return { status: response.statusCode, body, etag: typeof etag === 'string' ? etag : null };
  }
}
