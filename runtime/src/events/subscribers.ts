/**
 * Built-in subscribers (spec "Events", delivery rule 5): a webhook poster
 * and an e-mail sender. Each is a handler for `bus.subscribe`; a failure
 * throws, so the subscription's retries and dead letter apply, except a
 * webhook's 4xx answer, which is final (marked `final`: no more tries, the
 * dead letter at once).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { type Duration, durationMs } from '../config/readers.js';
import { ConfigError } from '../errors/api-error.js';
import type { MfxEvent } from './types.js';

/** A handler that settles once the delivery is done (or rejects). */
export type AsyncEventHandler = (event: MfxEvent) => Promise<void>;

export interface WebhookOptions {
  url: string;
  /** Signs each body: header `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body>`. */
  secret?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** The webhook's own tries after a network error or a 5xx, before the handler fails; default 0. */
  retries?: number;
  /** Per request; default '5s'. */
  timeout?: Duration;
  /** First wait between the webhook's own tries, doubled each time; default 200. */
  backoffMs?: number;
}

/** A webhook delivery that failed; `final` for a 4xx answer, which no retry would change. */
export class WebhookError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly final: boolean,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

/** The signature header's value for a body. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * A handler that POSTs each event as JSON to `url`, signed with `secret`,
 * with the event's `traceparent` (a fresh one when it has none).
 *
 * @example
 * await bus.subscribe({ name: 'crm', patterns: ['customer.*'], handler: webhook({ url: 'https://crm.example/hooks', secret: process.env.CRM_SECRET }) });
 */
export function webhook(options: WebhookOptions): AsyncEventHandler {
  let url: URL;
  try {
    url = new URL(options?.url);
  } catch {
    throw new ConfigError(`webhook() needs { url }: an absolute http(s) URL, not ${JSON.stringify(options?.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`webhook(): the url must be http or https, not ${url.protocol}`);
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret === '')) throw new ConfigError('webhook(): secret must be a non-empty string');
  const retries = options.retries ?? 0;
  if (!Number.isInteger(retries) || retries < 0) throw new ConfigError(`webhook(): retries must be a whole number of 0 or more, not ${String(options.retries)}`);
  const timeoutMs = durationMs(options.timeout, 5000, 'webhook timeout');
  const backoffMs = options.backoffMs ?? 200;
  const target = url.toString();
  // Lower-cased, so the names set below replace a configured Content-Type or traceparent instead of doubling it.
  const given = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));

  return async (event: MfxEvent) => {
    const body = JSON.stringify(event);
    const headers: Record<string, string> = {
      ...given,
      'content-type': 'application/json',
      traceparent: event.headers?.traceparent ?? `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
      'x-event-id': event.id,
      'x-event-type': event.type,
    };
    if (options.secret) headers['x-webhook-signature'] = webhookSignature(options.secret, body);
    let failure: WebhookError | null = null;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(backoffMs * 2 ** (attempt - 1), 30_000)));
      let status: number;
      try {
        const response = await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
        status = response.status;
        await response.arrayBuffer().catch(() => undefined);
      } catch (error) {
        failure = new WebhookError(`webhook ${url.host}: ${(error as Error)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : String((error as Error)?.cause ?? (error as Error)?.message ?? error)}`, null, false);
        continue;
      }
      if (status < 300) return;
      if (status < 500) throw new WebhookError(`webhook ${url.host} answered ${status}; a 4xx is final`, status, true);
      failure = new WebhookError(`webhook ${url.host} answered ${status}`, status, false);
    }
    throw failure!;
  };
}

/** What `email()` needs of a nodemailer transport (`nodemailer.createTransport(...)`). */
export interface MailTransport {
  sendMail(message: { from?: string; to: string | string[]; subject: string; text: string }): Promise<unknown>;
}

type PerEvent<T> = T | ((event: MfxEvent) => T);

export interface EmailOptions {
  /** A nodemailer transport (nodemailer is the app's own dependency). */
  transport: MailTransport;
  to: PerEvent<string | string[]>;
  subject: PerEvent<string>;
  /** The body; default the event as indented JSON. */
  text?: PerEvent<string>;
  from?: string;
}

/**
 * A handler that sends one e-mail per event through a nodemailer transport.
 *
 * @example
 * import nodemailer from 'nodemailer';
 * const transport = nodemailer.createTransport({ host: 'smtp.example', port: 587 });
 * await bus.subscribe({ name: 'ops-mail', patterns: ['order.deleted'], handler: email({ transport, to: 'ops@example.com', subject: (e) => `Order ${e.recordId} deleted` }) });
 */
export function email(options: EmailOptions): AsyncEventHandler {
  if (!options?.transport || typeof options.transport.sendMail !== 'function') {
    throw new ConfigError('email() needs { transport }: a nodemailer transport (npm install nodemailer; nodemailer.createTransport(...))');
  }
  if (options.to === undefined || options.subject === undefined) throw new ConfigError('email() needs { to, subject }');
  const value = <T>(v: PerEvent<T>, event: MfxEvent): T => (typeof v === 'function' ? (v as (e: MfxEvent) => T)(event) : v);
  return async (event) => {
    await options.transport.sendMail({
      ...(options.from ? { from: options.from } : {}),
      to: value(options.to, event),
      subject: value(options.subject, event),
      text: options.text === undefined ? JSON.stringify(event, null, 2) : value(options.text, event),
    });
  };
}
