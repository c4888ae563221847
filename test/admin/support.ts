// Helpers of the admin panel tests: plain HTTP to the panel (its pages are not in the API's OpenAPI document).
import type { ServerHandle } from '../support/server.js';

export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
}

export interface PageInit {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent as multipart/form-data (a form with file inputs). */
  multipart?: FormData;
  cookie?: string;
}

/** The server's origin (the panel lives beside the API prefix, not under it). */
export const originOf = (server: ServerHandle): string => new URL(server.url).origin;

/**
 * Requests a panel page without following redirects.
 *
 * @example
 * const page = await panel(server, '/admin/posts', { headers: auth });
 */
export async function panel(server: ServerHandle, path: string, init: PageInit = {}): Promise<PageResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | FormData | undefined;
  if (init.multipart) body = init.multipart;
  else if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await fetch(originOf(server) + path, { method: init.method ?? (init.form || init.multipart ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The CSRF token a page set (cookie) and mirrored (hidden field), for the POST that follows. */
export function csrfOf(page: PageResponse): { cookie: string; token: string } {
  const set = page.headers.get('set-cookie') ?? '';
  const cookie = /mfx_admin_csrf=([0-9a-f]{64})/.exec(set)?.[1];
  const field = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.html)?.[1];
  if (!cookie || !field) throw new Error(`the page carries no CSRF token (cookie ${cookie ?? 'missing'}, field ${field ?? 'missing'})`);
  return { cookie: `mfx_admin_csrf=${cookie}`, token: field };
}

/** The text of the page's <main>, tags removed, whitespace collapsed: what a reader sees. */
export function mainText(html: string): string {
  const main = html.slice(html.indexOf('<main'), html.indexOf('</main>'));
  return main
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
