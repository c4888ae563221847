// @mfx/events-amqp against the RabbitMQ on this machine: the shared bus
// contract on an exchange made for this run, then what is AMQP's own: a
// connection that drops (cut at a TCP relay between the bus and the broker)
// ends every subscription and calls its onClosed, the bus does not
// reconnect, and the broker deletes an ephemeral subscription's queue; the
// broker's confirm is what publish waits for.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { connect } from 'amqplib';
import { amqpBus } from '@mfx/events-amqp';
import { busContract, makeEvent } from '../support/bus-contract.js';
import { relay } from '../support/tcp-relay.js';
import { Recorder, until } from '../support/wait.js';
import { AMQP_URL, openBus } from './open.js';

const exchange = `mfxtest.${process.pid}.${randomUUID().slice(0, 8)}`;
process.env.MFX_TEST_EXCHANGE = exchange;
const admin = await connect(AMQP_URL);
const adminChannel = await admin.createChannel();
after(async () => {
  await adminChannel.deleteExchange(exchange);
  await admin.close();
});

/**
 * Whether the broker has the subscription's queue, by a passive declare on a
 * channel of its own (a missing queue closes the channel with 404; another
 * connection's exclusive queue answers 405 RESOURCE_LOCKED, so it exists).
 */
async function artefact(name: string): Promise<boolean> {
  const channel = await admin.createChannel();
  channel.on('error', () => {});
  try {
    await channel.checkQueue(`${exchange}.${name}`);
    await channel.close();
    return true;
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 404) return false;
    if (code === 405) return true;
    throw error;
  }
}

busContract('amqp', { open: () => openBus(), child: new URL('./open.ts', import.meta.url).pathname, env: { MFX_TEST_EXCHANGE: exchange }, artefact });

/** A relay to RabbitMQ whose connections the test can cut. */
async function link(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const r = await relay(5672);
  return { url: `amqp://guest:guest@127.0.0.1:${r.port}`, cut: r.cut, close: r.close };
}

describe('amqpBus', () => {
  it('a dropped connection ends every subscription, calls each onClosed once, and the bus refuses work instead of reconnecting; the broker deletes the ephemeral queue', async () => {
    const cutter = await link();
    const bus = await openBus(cutter.url);
    const closedA = new Recorder<Error>();
    const closedB = new Recorder<Error>();
    const got = new Recorder<string>();
    const ephemeral = `drop-a-${randomUUID().slice(0, 6)}`;
    await bus.subscribe({ name: ephemeral, patterns: ['post.*'], ephemeral: true, handler: (e) => got.push(e.id), onClosed: (e) => closedA.push(e) });
    await bus.subscribe({ name: `drop-b-${randomUUID().slice(0, 6)}`, patterns: ['*.deleted'], handler: () => {}, onClosed: (e) => closedB.push(e) });
    const event = makeEvent('post.created');
    await bus.publish([event]);
    await got.next();
    assert.equal(await artefact(ephemeral), true);
    cutter.cut();
    const [reasonA] = await closedA.count(1);
    await closedB.count(1);
    assert.ok(reasonA instanceof Error);
    await assert.rejects(bus.publish([makeEvent('post.created')]), /the amqp bus on exchange "mfxtest\.[^"]+" lost its connection: /);
    await assert.rejects(bus.subscribe({ name: 'late', patterns: ['post.*'], handler: () => {} }), /lost its connection/);
    await bus.close();
    assert.equal(closedA.seen.length, 1);
    assert.equal(closedB.seen.length, 1);
    // The broker deletes the exclusive queue once it sees the connection gone; nothing announces that.
    await until(async () => !(await artefact(ephemeral)));
    await cutter.close();
  });

  it('close() calls no onClosed', async () => {
    const bus = await openBus();
    const closed = new Recorder<Error>();
    await bus.subscribe({ name: `quiet-${randomUUID().slice(0, 6)}`, patterns: ['post.*'], handler: () => {}, onClosed: (e) => closed.push(e) });
    await bus.close();
    assert.deepEqual(closed.seen, []);
  });

  it('publishes persistent JSON with the event id, type as routing key and headers as AMQP headers', async () => {
    const bus = await openBus();
    const q = await adminChannel.assertQueue('', { exclusive: true });
    await adminChannel.bindQueue(q.queue, exchange, 'user.*');
    const event = makeEvent('user.created');
    await bus.publish([event]);
    const msg = await new Promise<import('amqplib').ConsumeMessage>((resolve) => void adminChannel.consume(q.queue, (m) => m && resolve(m), { noAck: true }));
    assert.equal(msg.fields.routingKey, 'user.created');
    assert.equal(msg.properties.messageId, event.id);
    assert.equal(msg.properties.deliveryMode, 2);
    assert.equal(msg.properties.contentType, 'application/json');
    assert.deepEqual(msg.properties.headers, event.headers);
    assert.deepEqual(JSON.parse(msg.content.toString()), event);
    await bus.close();
  });

  it('refuses a missing url and a bad prefetch, and rejects when the broker cannot be reached', async () => {
    await assert.rejects(amqpBus({} as never), { name: 'ConfigError', message: 'mfx: amqpBus() needs { url }: the broker URL (amqp://user:password@host:5672)' });
    await assert.rejects(amqpBus({ url: AMQP_URL, prefetch: 0 }), { name: 'ConfigError', message: 'mfx: amqpBus(): prefetch must be a whole number above 0, not 0' });
    const gone = await link();
    await gone.close();
    await assert.rejects(amqpBus({ url: gone.url }), { code: 'ECONNREFUSED' });
  });
});
