import type { IncomingMessage } from 'node:http';
import type { Identity } from '../pipeline/types.js';

/** Where an in-process caller's identity rides on its request object; a symbol, so nothing sent over the wire can set it. */
const PRESET_IDENTITY = Symbol('mfx.presetIdentity');

type Marked = IncomingMessage & { [PRESET_IDENTITY]?: Identity };

/**
 * Marks a request made in-process (a satellite such as the admin panel
 * calling the service's own routes through `app.handler()`) as coming from
 * an already authenticated caller: the route's context starts with this
 * identity, so authenticators let it through without a credential and the
 * gates, tenancy, hooks and redaction apply to that caller as over HTTP.
 * Only code holding the request object can set it.
 *
 * @example
 * const handler = app.handler();
 * await inject((req, res) => { presetIdentity(req, caller); handler(req, res); }, { method: 'GET', url: '/api/posts' });
 */
export function presetIdentity(req: IncomingMessage, identity: Identity | null): void {
  if (identity) (req as Marked)[PRESET_IDENTITY] = identity;
}

/** The identity presetIdentity put on a request, or null (every request from the network). */
export function presetIdentityOf(req: IncomingMessage): Identity | null {
  return (req as Marked)[PRESET_IDENTITY] ?? null;
}
