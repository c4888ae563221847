import type { IncomingMessage } from 'node:http';
import type { Identity } from '../pipeline/types.js';

/** Where an in-process call's mark rides on its request object; a symbol, so nothing sent over the wire can set it. */
const IN_PROCESS = Symbol('mfx.inProcess');

/** What a satellite (such as the admin panel) says about a request it makes in this process. */
export interface InProcessCall {
  /** The caller it already authenticated (null: anonymous). */
  identity: Identity | null;
  /**
   * Answer every localized field in split mode (the string and its
   * `<field><splitSuffix>` map) whatever its own mode, so an edit form can
   * show each locale's stored text, which resolve mode never sends.
   */
  localeMaps?: boolean;
}

type Marked = IncomingMessage & { [IN_PROCESS]?: InProcessCall };

/**
 * Marks a request made in-process (a satellite such as the admin panel
 * calling the service's own routes through `app.handler()`): the route's
 * context starts with `identity`, so authenticators let it through without a
 * credential and the gates, tenancy, hooks and redaction apply to that caller
 * as over HTTP. `csrf()` lets a marked request through: no browser sent it,
 * and the satellite answers for the forgery check of the browser request it
 * serves (the panel's own double-submit token). Only code holding the
 * request object can set it.
 *
 * @example
 * const handler = app.handler();
 * await inject((req, res) => { markInProcess(req, { identity: caller }); handler(req, res); }, { method: 'GET', url: '/api/posts' });
 */
export function markInProcess(req: IncomingMessage, call: InProcessCall): void {
  (req as Marked)[IN_PROCESS] = { identity: call.identity, localeMaps: call.localeMaps === true };
}

/** `markInProcess(req, { identity })`, kept for satellites written against it. */
export function presetIdentity(req: IncomingMessage, identity: Identity | null): void {
  markInProcess(req, { identity });
}

/** The mark of an in-process request, or null (every request from the network). */
export function inProcessOf(req: IncomingMessage): InProcessCall | null {
  return (req as Marked)[IN_PROCESS] ?? null;
}

/** The identity an in-process request was marked with, or null (every request from the network). */
export function presetIdentityOf(req: IncomingMessage): Identity | null {
  return (req as Marked)[IN_PROCESS]?.identity ?? null;
}
