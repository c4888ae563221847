// @mfx/events-nats against the NATS JetStream server on this machine: the
// shared bus contract on a stream made for this run (a connection closed for
// good included), then what is NATS's own:
// the stream the bus binds is checked when it opens (missing, not capturing
// the bus's subjects, another stream overlapping them).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { connect } from 'nats';
import { natsBus } from '@mfx/events-nats';
import { busContract, makeEvent } from '../support/bus-contract.js';
import { Recorder } from '../support/wait.js';
import { NATS_URL, openBus } from './open.js';

const tag = `${process.pid}_${randomUUID().slice(0, 8)}`;
const stream = `MFX_TEST_${tag}`;
const admin = await connect({ servers: NATS_URL });
const jsm = await admin.jetstreamManager();
const made: string[] = [];
async function addStream(name: string, subjects: string[]): Promise<void> {
  await jsm.streams.add({ name, subjects });
  made.push(name);
}
await addStream(stream, [`mfxtest.${tag}.>`]);
process.env.MFX_TEST_NATS_STREAM = stream;
after(async () => {
  for (const name of made) await jsm.streams.delete(name);
  await admin.close();
});

/** Whether the test stream has a consumer of that name (durable or ephemeral). */
async function artefact(name: string): Promise<boolean> {
  return jsm.consumers.info(stream, name).then(
    () => true,
    (error: Error) => {
      if (/consumer not found/i.test(error.message)) return false;
      throw error;
    },
  );
}

busContract('nats', {
  open: () => openBus(),
  child: new URL('./open.ts', import.meta.url).pathname,
  env: { MFX_TEST_NATS_STREAM: stream },
  artefact,
  // Without reconnecting, a transport failure closes the client for good.
  cut: { port: 4222, open: (port) => openBus({ servers: `nats://127.0.0.1:${port}`, connectionOptions: { reconnect: false } }), lost: new RegExp(`^Error: the nats bus on stream "${stream}" lost its connection: `) },
});

describe('natsBus', () => {
  it('refuses to open on a stream that does not exist', async () => {
    await assert.rejects(natsBus({ servers: NATS_URL, stream: `MISSING_${tag}` }), {
      name: 'ConfigError',
      message: `mfx: natsBus: the JetStream stream "MISSING_${tag}" does not exist; create it first (e.g. nats stream add MISSING_${tag} --subjects 'events.>')`,
    });
  });

  it('refuses to open when another stream captures some of its subjects, naming both', async () => {
    await addStream(`POSTS_${tag}`, [`ov${tag}.post.*`]);
    await addStream(`USERS_${tag}`, [`ov${tag}.user.*`]);
    await assert.rejects(natsBus({ servers: NATS_URL, stream: `POSTS_${tag}`, subjectPrefix: `ov${tag}` }), {
      name: 'ConfigError',
      message: `mfx: natsBus: the stream "USERS_${tag}" captures "ov${tag}.user.*", which overlaps the subjects "ov${tag}.>" of the stream "POSTS_${tag}" this bus binds; give each stream subjects of its own`,
    });
  });

  it('refuses a stream that does not capture every subject the events go to, and one whose prefix it cannot guess', async () => {
    await addStream(`NARROW_${tag}`, [`nw${tag}.post.*`]);
    await assert.rejects(natsBus({ servers: NATS_URL, stream: `NARROW_${tag}`, subjectPrefix: `nw${tag}` }), {
      name: 'ConfigError',
      message: `mfx: natsBus: the stream "NARROW_${tag}" captures ["nw${tag}.post.*"], not every subject under "nw${tag}.>" the events are published to; add "nw${tag}.>" to its subjects or set subjectPrefix`,
    });
    await assert.rejects(natsBus({ servers: NATS_URL, stream: `NARROW_${tag}` }), {
      name: 'ConfigError',
      message: `mfx: natsBus: set subjectPrefix: the stream "NARROW_${tag}" captures ["nw${tag}.post.*"], not one "<prefix>.>" the events could be published under`,
    });
  });

  it('publishes to <prefix>.<type> on the bound stream, the event id as the message id (a repeated publish is stored once)', async () => {
    const bus = await openBus();
    const got = new Recorder<string>();
    await bus.subscribe({ name: `dup_${tag}`, patterns: ['post.*', 'user.*'], handler: (e) => got.push(e.id) });
    const event = makeEvent('user.created');
    const before = (await jsm.streams.info(stream)).state.messages;
    await bus.publish([event]);
    await bus.publish([event]);
    const end = makeEvent('post.created');
    await bus.publish([end]);
    await got.next((id) => id === end.id);
    assert.deepEqual(got.seen, [event.id, end.id]);
    assert.equal((await jsm.streams.info(stream)).state.messages, before + 2);
    const stored = await jsm.streams.getMessage(stream, { last_by_subj: `mfxtest.${tag}.user.created` });
    assert.equal(stored.json<{ id: string }>().id, event.id);
    await bus.close();
  });

  it('refuses a subscription name a consumer cannot have', async () => {
    const bus = await openBus();
    await assert.rejects(bus.subscribe({ name: 'a.b', patterns: ['post.*'], handler: () => {} }), {
      name: 'ConfigError',
      message: `mfx: natsBus: "a.b" cannot name a consumer: use letters, digits, '_' and '-'`,
    });
    await bus.close();
  });

  it('refuses bad options with the option named, before connecting', async () => {
    await assert.rejects(natsBus({ servers: NATS_URL, stream, batch: 0 }), { name: 'ConfigError', message: 'mfx: natsBus(): batch must be a whole number above 0, not 0' });
    await assert.rejects(natsBus({ servers: NATS_URL, stream, ephemeralExpiryMs: -1 }), { name: 'ConfigError', message: 'mfx: natsBus(): ephemeralExpiryMs must be a whole number above 0, not -1' });
  });
});
