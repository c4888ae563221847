// The EventBus contract (runtime/src/events/types.ts) as a suite that runs
// against any bus on its real broker: pattern routing (`post.*`,
// `*.deleted`, `job.*.completed` over dotted job types), the event round trip, at-least-once redelivery after a
// consumer process is killed mid-handler, retries then the dead-letter
// republish, close waiting for running handlers, a closed bus refusing
// work, and an ephemeral subscription leaving no broker artefact behind,
// after close() or after its process was killed (asked of the broker itself
// through `artefact`).
//
//   busContract('redis-streams', { open: () => openBus(), child: new URL('./open.ts', import.meta.url).pathname });
//
// `child` names a module exporting `openBus(): Promise<EventBus>` that opens
// the same bus (same stream, exchange or NATS stream) as `open`; the crash
// test runs it in a child process (test/support/bus-child.ts) and kills it
// with SIGKILL while its handler holds an event.
//
// What ends a subscription is one suite too (`dropContract`, run by
// `busContract` and by the in-process bus on its own): close() calls no
// onClosed, and, with `cut`, the broker connection cut at a TCP relay
// (test/support/tcp-relay.ts) either ends every subscription with onClosed
// and the bus refuses work (no reconnect: NATS, AMQP) or the bus reads on
// once its client reconnected, calling no onClosed (Redis).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import type { DeliveryInfo, EventBus, MfxEvent } from '../../runtime/src/events/types.js';

import { relay } from './tcp-relay.js';
import { gate, Recorder, until } from './wait.js';

/** Runs a child from the TypeScript sources (scripts/sources.mjs). */
const SOURCE_FLAGS = ['--conditions=mfx-source', '--import', 'tsx'];

export interface BusUnderTest {
  open(): Promise<EventBus>;
  /** Path of a module exporting `openBus()`, opening the same bus in the crash test's child process. */
  child: string;
  /** Environment the child needs to open the same bus (the test's stream or exchange name). */
  env: Record<string, string>;
  /**
   * Whether the broker holds anything for the subscription `name` (consumer
   * group or heartbeat, consumer, queue), asked through the broker's own
   * commands. `open()` must make ephemeral artefacts expire within seconds
   * of their process dying.
   */
  artefact(name: string): Promise<boolean>;
  /** How the bus meets its broker connection cut under it. */
  cut: CutUnderTest;
}

/** A bus opened through a TCP relay the test cuts, and what it must do then. */
export interface CutUnderTest {
  /** The broker's port on 127.0.0.1, which the relay forwards to. */
  port: number;
  /** Opens the bus under test on the broker at 127.0.0.1:`port` (the relay), with the same stream, exchange or NATS stream as `open`. */
  open(port: number): Promise<EventBus>;
  /**
   * What publish and subscribe reject with once the connection is gone for
   * good: the bus does not reconnect (NATS opened with `reconnect: false`,
   * AMQP by design). Absent for a bus whose client reconnects (Redis): it
   * reads on once the broker is back, and calls no onClosed.
   */
  lost?: RegExp;
}

export function makeEvent(type: string, extra: Partial<MfxEvent> = {}): MfxEvent {
  return {
    id: randomUUID(),
    type,
    model: type.split('.')[0]!.replace(/^./, (c) => c.toUpperCase()),
    recordId: randomUUID(),
    data: { title: 'Notes on the Engine', views: 3, tags: ['math'], nested: { ok: true }, none: null },
    tenantId: 't1',
    actorId: 'u1',
    requestId: 'req-1',
    time: new Date().toISOString(),
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    ...extra,
  };
}

interface Received {
  event: MfxEvent;
  info: DeliveryInfo;
}

let names = 0;
/** A subscription name no earlier test used (durable groups, consumers and queues outlive a test). */
function fresh(label: string): string {
  return `${label}-${process.pid}-${++names}-${randomUUID().slice(0, 6)}`;
}

/**
 * A `bus-child.ts` process holding one subscription of the bus under test
 * (`extra`: its further arguments, such as `ephemeral`), resolved once it
 * printed `ready`; `lines` records what it prints after, `exited` its signal.
 */
async function subscribedChild(under: BusUnderTest, name: string, ...extra: string[]) {
  const child = spawn(process.execPath, [...SOURCE_FLAGS, new URL('./bus-child.ts', import.meta.url).pathname, under.child, name, 'post.*', ...extra], {
    env: { ...process.env, ...under.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = new Recorder<string>();
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await lines.next((l) => l === 'ready');
  return { child, lines, exited };
}

export function busContract(name: string, under: BusUnderTest): void {
  describe(`EventBus contract: ${name}`, () => {
    dropContract(name, under);

    let bus: EventBus;
    before(async () => {
      bus = await under.open();
    });
    after(async () => {
      await bus?.close();
    });

    it('routes by dotted pattern: post.* and *.deleted each get their events, in publish order, intact', async () => {
      const posts = new Recorder<Received>();
      const deletions = new Recorder<Received>();
      const a = await bus.subscribe({ name: fresh('posts'), patterns: ['post.*'], handler: (event, info) => posts.push({ event, info }) });
      const b = await bus.subscribe({ name: fresh('deleted'), patterns: ['*.deleted'], handler: (event, info) => deletions.push({ event, info }) });
      const events = [makeEvent('post.created'), makeEvent('user.created'), makeEvent('post.deleted'), makeEvent('user.deleted'), makeEvent('post.updated', { data: null, recordId: null, model: null })];
      const end = makeEvent('post.deleted', { headers: {} });
      await bus.publish(events);
      await bus.publish([end]);
      await posts.next((r) => r.event.id === end.id);
      await deletions.next((r) => r.event.id === end.id);
      assert.deepEqual(posts.seen.map((r) => r.event), [events[0], events[2], events[4], end]);
      assert.deepEqual(deletions.seen.map((r) => r.event), [events[2], events[3], end]);
      assert.deepEqual(posts.seen[0]!.info, { subscription: a.name, attempt: 1 });
      assert.deepEqual(deletions.seen[0]!.info, { subscription: b.name, attempt: 1 });
      await Promise.all([a.close(), b.close()]);
    });

    it('routes job events by job.*.<outcome> whatever the job type: a dotted type (email.send) matches as a whole, one pattern filtering on the broker', async () => {
      const completed = new Recorder<MfxEvent>();
      const failed = new Recorder<MfxEvent>();
      const a = await bus.subscribe({ name: fresh('job-completed'), patterns: ['job.*.completed'], handler: (event) => completed.push(event) });
      const b = await bus.subscribe({ name: fresh('job-failed'), patterns: ['job.*.failed'], handler: (event) => failed.push(event) });
      const events = ['job.work.completed', 'job.email.send.completed', 'job.email.send.failed', 'job.completed', 'mail.email.send.completed', 'job.a.b.c.failed'].map((type) => makeEvent(type));
      const ends = [makeEvent('job.end.completed'), makeEvent('job.end.failed')];
      await bus.publish(events);
      await bus.publish(ends);
      await completed.next((e) => e.id === ends[0]!.id);
      await failed.next((e) => e.id === ends[1]!.id);
      assert.deepEqual(completed.seen.map((e) => e.type), ['job.work.completed', 'job.email.send.completed', 'job.end.completed']);
      assert.deepEqual(failed.seen.map((e) => e.type), ['job.email.send.failed', 'job.a.b.c.failed', 'job.end.failed']);
      await Promise.all([a.close(), b.close()]);
    });

    it('refuses a bad pattern and a nameless subscription at subscribe', async () => {
      await assert.rejects(bus.subscribe({ name: fresh('bad'), patterns: ['post.#'], handler: () => {} }), {
        name: 'ConfigError',
        message: `mfx: "post.#" is not an event pattern: write dotted segments of letters, digits, '_' or '-', with '*' for one whole segment (e.g. "post.*", "*.deleted")`,
      });
      await assert.rejects(bus.subscribe({ name: '', patterns: ['post.*'], handler: () => {} }), { name: 'ConfigError', message: 'mfx: subscribe() needs a name: it names the consumer group or queue' });
      const name = fresh('bad');
      await assert.rejects(bus.subscribe({ name, patterns: ['post.*'], handler: () => {}, ephemeral: 'yes' as never }), { name: 'ConfigError', message: `mfx: subscribe({ name: '${name}' }): ephemeral must be true or false, not yes` });
      assert.equal(await under.artefact(name), false, 'a refused subscription makes nothing on the broker');
    });

    it('ephemeral: the subscription receives its events, and once close() resolves the broker holds nothing of its name (a durable one stays)', async () => {
      const name = fresh('ephemeral');
      const got = new Recorder<string>();
      const sub = await bus.subscribe({ name, patterns: ['post.*'], ephemeral: true, handler: (e) => got.push(e.id) });
      assert.equal(await under.artefact(name), true);
      const event = makeEvent('post.created');
      await bus.publish([event]);
      await got.next((id) => id === event.id);
      await sub.close();
      assert.equal(await under.artefact(name), false);

      const kept = fresh('durable');
      await (await bus.subscribe({ name: kept, patterns: ['post.*'], handler: () => {} })).close();
      assert.equal(await under.artefact(kept), true, 'a durable subscription keeps its artefact after close()');
    });

    it('ephemeral: the artefact of a subscription whose process was killed is removed (by the broker, or by a live ephemeral subscription of the bus)', { timeout: 60_000 }, async () => {
      // Redis has no broker-side expiry: a live ephemeral subscription on the stream sweeps dead ones.
      const sweeper = await bus.subscribe({ name: fresh('sweeper'), patterns: ['post.*'], ephemeral: true, handler: () => {} });
      const name = fresh('killed');
      const { child, exited } = await subscribedChild(under, name, 'ephemeral');
      assert.equal(await under.artefact(name), true);
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      // Nothing announces the broker's expiry: look until it is gone (the test's timeout turns a leak into a failure).
      await until(async () => !(await under.artefact(name)));
      await sweeper.close();
    });

    it('retries a failing handler with backoff, then republishes under the DLQ type with a fresh id and original_type/original_id', async () => {
      const attempts = new Recorder<Received>();
      const dead = new Recorder<Received>();
      const failing = await bus.subscribe({
        name: fresh('failing'),
        patterns: ['post.*'],
        retries: 2,
        backoffMs: 1,
        dlqType: 'deadletter.post',
        handler: (event, info) => {
          attempts.push({ event, info });
          throw new Error('handler down');
        },
      });
      const dlq = await bus.subscribe({ name: fresh('dlq'), patterns: ['deadletter.*'], handler: (event, info) => dead.push({ event, info }) });
      const event = makeEvent('post.created');
      await bus.publish([event]);
      const [letter] = await dead.count(1);
      assert.deepEqual(attempts.seen.map((r) => [r.event.id, r.info.attempt]), [[event.id, 1], [event.id, 2], [event.id, 3]]);
      assert.notEqual(letter!.event.id, event.id);
      assert.equal(letter!.event.type, 'deadletter.post');
      assert.deepEqual(letter!.event.headers, { ...event.headers, original_type: 'post.created', original_id: event.id });
      const { id: _i, type: _t, time: _tm, headers: _h, ...same } = event;
      const { id: _i2, type: _t2, time: _tm2, headers: _h2, ...kept } = letter!.event;
      assert.deepEqual(kept, same);
      await Promise.all([failing.close(), dlq.close()]);
    });

    it('a handler that fails once and then succeeds is not dead-lettered', async () => {
      const attempts = new Recorder<number>();
      const dead = new Recorder<MfxEvent>();
      const flaky = await bus.subscribe({
        name: fresh('flaky'),
        patterns: ['post.*'],
        backoffMs: 1,
        dlqType: 'deadletter.flaky',
        handler: (event, info) => {
          attempts.push(info.attempt);
          if (event.type === 'post.created' && info.attempt === 1) throw new Error('once');
        },
      });
      const dlq = await bus.subscribe({ name: fresh('dlq'), patterns: ['deadletter.*'], handler: (event) => dead.push(event) });
      await bus.publish([makeEvent('post.created'), makeEvent('post.updated')]);
      await attempts.count(3);
      // The DLQ subscription sees an event published after: nothing came before it.
      const marker = makeEvent('deadletter.marker');
      await bus.publish([marker]);
      await dead.next();
      assert.deepEqual(attempts.seen, [1, 2, 1]);
      assert.deepEqual(dead.seen.map((e) => e.id), [marker.id]);
      await Promise.all([flaky.close(), dlq.close()]);
    });

    it('close() waits for the running handler, acknowledges its event, and the same subscription resumes with the next one', async () => {
      const name = fresh('drain');
      const held = gate();
      const steps: string[] = [];
      const got = new Recorder<string>();
      const first = await bus.subscribe({
        name,
        patterns: ['post.*'],
        handler: async (event) => {
          got.push(event.id);
          await held.opened;
          steps.push('handler finished');
        },
      });
      const event = makeEvent('post.created');
      await bus.publish([event]);
      await got.next((id) => id === event.id);
      const closing = first.close().then(() => steps.push('close resolved'));
      held.open();
      await closing;
      assert.deepEqual(steps, ['handler finished', 'close resolved']);

      const again = new Recorder<string>();
      const second = await bus.subscribe({ name, patterns: ['post.*'], handler: (e) => again.push(e.id) });
      const next = makeEvent('post.updated');
      await bus.publish([next]);
      await again.next((id) => id === next.id);
      assert.deepEqual(again.seen, [next.id], 'the drained event was acknowledged, not redelivered');
      await second.close();
    });

    it('at least once: an event whose consumer process was killed mid-handler is delivered again to the same subscription', { timeout: 60_000 }, async () => {
      const name = fresh('crash');
      const { child, lines, exited } = await subscribedChild(under, name);
      const event = makeEvent('post.created');
      await bus.publish([event]);
      await lines.next((l) => l === `received ${event.id}`);
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');

      const again = new Recorder<MfxEvent>();
      const resumed = await bus.subscribe({ name, patterns: ['post.*'], handler: (e) => again.push(e) });
      const redelivered = await again.next();
      assert.deepEqual(redelivered, event);
      await resumed.close();
    });

    it('a closed bus refuses publish and subscribe; closing twice is harmless', async () => {
      const other = await under.open();
      const got = new Recorder<string>();
      await other.subscribe({ name: fresh('closing'), patterns: ['post.*'], handler: (e) => got.push(e.id) });
      const event = makeEvent('post.created');
      await other.publish([event]);
      await got.next();
      await other.close();
      await other.close();
      await assert.rejects(other.publish([makeEvent('post.created')]), /closed/);
      await assert.rejects(other.subscribe({ name: fresh('late'), patterns: ['post.*'], handler: () => {} }), /closed/);
    });
  });
}

/**
 * How subscriptions end, for every bus: close() calls no onClosed; with
 * `cut` (a bus on a broker), a cut connection either ends every subscription
 * once, with onClosed, and the bus refuses work and the broker removes the
 * ephemeral artefact (`cut.lost`), or the bus reads on without onClosed.
 *
 *   dropContract('memory', { open: async () => memoryBus() });
 */
export function dropContract(name: string, under: Pick<BusUnderTest, 'open'> & Partial<Pick<BusUnderTest, 'artefact' | 'cut'>>): void {
  describe(`EventBus contract, ending subscriptions: ${name}`, () => {
    it('close() calls no onClosed', async () => {
      const bus = await under.open();
      const closed = new Recorder<Error>();
      await bus.subscribe({ name: fresh('quiet'), patterns: ['post.*'], handler: () => {}, onClosed: (e) => closed.push(e) });
      await bus.close();
      assert.deepEqual(closed.seen, []);
    });

    const { cut, artefact } = under;
    if (cut?.lost && artefact) {
      const lost = cut.lost;
      it('a connection closed for good ends every subscription, calls each onClosed once, the bus refuses work instead of reconnecting, and the broker removes the ephemeral artefact', { timeout: 30_000 }, async () => {
        const cutter = await relay(cut.port);
        const bus = await cut.open(cutter.port);
        const closedA = new Recorder<Error>();
        const closedB = new Recorder<Error>();
        const got = new Recorder<string>();
        const ephemeral = fresh('drop-a');
        await bus.subscribe({ name: ephemeral, patterns: ['post.*'], ephemeral: true, handler: (e) => got.push(e.id), onClosed: (e) => closedA.push(e) });
        await bus.subscribe({ name: fresh('drop-b'), patterns: ['*.deleted'], handler: () => {}, onClosed: (e) => closedB.push(e) });
        await bus.publish([makeEvent('post.created')]);
        await got.next();
        assert.equal(await artefact(ephemeral), true);
        cutter.cut();
        const [reasonA] = await closedA.count(1);
        await closedB.count(1);
        assert.ok(reasonA instanceof Error);
        await assert.rejects(bus.publish([makeEvent('post.created')]), lost);
        await assert.rejects(bus.subscribe({ name: fresh('late'), patterns: ['post.*'], handler: () => {} }), lost);
        await bus.close();
        assert.equal(closedA.seen.length, 1);
        assert.equal(closedB.seen.length, 1);
        // The broker removes it once it sees no client (NATS: after the bus's ephemeral expiry); nothing announces that.
        await until(async () => !(await artefact(ephemeral)));
        await cutter.close();
      });
    } else if (cut) {
      it('keeps reading after its connections to the broker were cut, without calling onClosed', async () => {
        const cutter = await relay(cut.port);
        const bus = await cut.open(cutter.port);
        const direct = await under.open();
        const got = new Recorder<string>();
        const closed = new Recorder<Error>();
        await bus.subscribe({ name: fresh('cut'), patterns: ['post.*'], handler: (e) => got.push(e.id), onClosed: (e) => closed.push(e) });
        const first = makeEvent('post.created');
        await bus.publish([first]);
        await got.next((id) => id === first.id);
        cutter.cut();
        // Published by a bus on a connection of its own, never cut: the cut bus's connections are coming back.
        const second = makeEvent('post.updated');
        await direct.publish([second]);
        assert.equal(await got.next((id) => id === second.id), second.id);
        assert.deepEqual(closed.seen, []);
        await Promise.all([bus.close(), direct.close()]);
        await cutter.close();
      });
    }
  });
}
