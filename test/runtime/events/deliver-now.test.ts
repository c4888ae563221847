// The delivery rules (events/delivery.ts) when the first try's handler answers now: `deliverNow`
// answers without a promise, which the memory bus uses so a handler that counts or caches costs
// no promise per event; a handler that returns a promise (or any thenable), or throws, takes the
// asynchronous path with its retries and dead letter, as `deliver` always did.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EventBus, type MfxEvent, silentLogger, type SubscribeOptions } from '@mfx/runtime';
import { deliver, deliverNow, subscriber } from '../../../runtime/src/events/delivery.js';
import { tickEvent } from './support.js';

/** A subscriber without backoff that records the number of each try and answers as `answer` says for it. */
function counting(options: Omit<SubscribeOptions, 'name' | 'patterns' | 'handler'>, answer: (attempt: number) => void | Promise<void>) {
  const attempts: number[] = [];
  const sub = subscriber({
    name: 'counting',
    patterns: ['*.*'],
    backoffMs: 0,
    ...options,
    handler: (_event, info) => {
      attempts.push(info.attempt);
      return answer(info.attempt);
    },
  });
  return { sub, attempts };
}

/** A bus that only records what is published to it (the dead letters). */
function recordingBus(): EventBus & { published: MfxEvent[] } {
  const published: MfxEvent[] = [];
  return { kind: 'recording', published, publish: async (events) => void published.push(...events), subscribe: async () => assert.fail('not subscribed'), close: async () => {} };
}

describe('deliverNow', () => {
  it('answers handled now when the handler answers now', () => {
    const seen: string[] = [];
    const sub = subscriber({ name: 'count', patterns: ['*.*'], handler: (event) => void seen.push(event.id) });
    const event = tickEvent(1);
    assert.equal(deliverNow(event, sub, recordingBus(), silentLogger), 'handled');
    assert.deepEqual(seen, [event.id]);
  });

  it('waits for a handler that returns a thenable', async () => {
    let settled = false;
    const thenable = { then: (resolve: () => void) => setImmediate(() => ((settled = true), resolve())) };
    const sub = subscriber({ name: 'later', patterns: ['*.*'], handler: () => thenable as unknown as Promise<void> });
    const outcome = deliverNow(tickEvent(2), sub, recordingBus(), silentLogger);
    assert.ok(outcome instanceof Promise);
    assert.equal(await outcome, 'handled');
    assert.equal(settled, true);
  });

  it('retries a handler that throws at once, then dead-letters the event, as deliver does', async () => {
    for (const run of [deliverNow, deliver]) {
      const { sub, attempts } = counting({ retries: 2, dlqType: 'tick.dead' }, () => {
        throw new Error('refused');
      });
      const bus = recordingBus();
      const event = tickEvent(3);
      const outcome = run(event, sub, bus, silentLogger);
      assert.ok(outcome instanceof Promise);
      assert.equal(await outcome, 'dead-lettered');
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.equal(bus.published.length, 1);
      assert.equal(bus.published[0]!.type, 'tick.dead');
      assert.equal(bus.published[0]!.headers.original_id, event.id);
    }
  });

  it('succeeds on a retry after a first try that threw at once', async () => {
    const { sub, attempts } = counting({}, (attempt) => {
      if (attempt === 1) throw new Error('once');
    });
    assert.equal(await deliverNow(tickEvent(4), sub, recordingBus(), silentLogger), 'handled');
    assert.deepEqual(attempts, [1, 2]);
  });

  it('stops trying an error marked final', async () => {
    const final = Object.assign(new Error('gone'), { final: true });
    const { sub, attempts } = counting({}, () => Promise.reject(final));
    assert.equal(await deliverNow(tickEvent(5), sub, recordingBus(), silentLogger), 'dropped');
    assert.deepEqual(attempts, [1]);
  });
});
