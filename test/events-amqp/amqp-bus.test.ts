// @mfx/events-amqp against the RabbitMQ on this machine: the shared bus
// contract on an exchange made for this run (a dropped connection included:
// no reconnect), then what is AMQP's own: the message publish sends and the
// options checked.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { connect } from 'amqplib';
import { amqpBus } from '@mfx/events-amqp';
import { busContract, makeEvent } from '../support/bus-contract.js';
import { relay } from '../support/tcp-relay.js';
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

busContract('amqp', {
  open: () => openBus(),
  child: new URL('./open.ts', import.meta.url).pathname,
  env: { MFX_TEST_EXCHANGE: exchange },
  artefact,
  cut: { port: 5672, open: (port) => openBus(`amqp://guest:guest@127.0.0.1:${port}`), lost: /^Error: the amqp bus on exchange "mfxtest\.[^"]+" lost its connection: / },
});

/** A relay to RabbitMQ whose connections the test can cut. */
async function link(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const r = await relay(5672);
  return { url: `amqp://guest:guest@127.0.0.1:${r.port}`, cut: r.cut, close: r.close };
}

describe('amqpBus', () => {
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
