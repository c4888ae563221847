// Shared set-up of the event suites: the `events` fixture with its encryption keys,
// the secrets that must never reach an event, and a recorder of delivered events.
import { randomBytes } from 'node:crypto';
import { type EventBus, type MfxEvent, type ServerConfig, staticKeyProvider } from '@mfx/runtime';
import { Recorder } from '../../support/wait.js';

export const PASSWORD = 'hunter2-never-published';
export const SSN = '078-05-1120';
export const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

export const eventsConfig = (): ServerConfig => ({ keyProvider: staticKeyProvider({ keys: { default: randomBytes(32), index: randomBytes(32) } }) });

/** A hand-built event numbered `n` (type `tick.created`, no model): what the outbox suites publish directly. */
export const tickEvent = (n: number): MfxEvent => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'tick.created',
  model: null,
  recordId: String(n),
  data: { n },
  tenantId: null,
  actorId: null,
  requestId: null,
  time: new Date().toISOString(),
  headers: {},
});

/** Subscribes a recorder to every two-segment type on `bus`. */
export async function record(bus: EventBus, name = 'recorder', patterns = ['*.*']): Promise<Recorder<MfxEvent>> {
  const seen = new Recorder<MfxEvent>();
  await bus.subscribe({ name, patterns, handler: (event) => seen.push(event) });
  return seen;
}

/** Fails the text if it holds a secret value or a redacted column's name. */
export function assertRedacted(text: string, what: string): void {
  for (const secret of [PASSWORD, SSN, 'ssn_hmac', '"password"', '"score"', '"ssn"']) {
    if (text.includes(secret)) throw new Error(`${what} holds ${secret}: ${text.slice(0, 500)}`);
  }
}
