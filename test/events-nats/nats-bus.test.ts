// @mfx/events-nats against the NATS JetStream server on this machine: the
// shared bus contract on a stream made for this run, then what is NATS's own:
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

busContract('nats', { open: openBus, child: new URL('./open.ts', import.meta.url).pathname, env: { MFX_TEST_NATS_STREAM: stream } });

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

  it('refuses a subscription name a durable consumer cannot have', async () => {
    const bus = await openBus();
    await assert.rejects(bus.subscribe({ name: 'a.b', patterns: ['post.*'], handler: () => {} }), {
      name: 'ConfigError',
      message: `mfx: natsBus: "a.b" cannot name a durable consumer: use letters, digits, '_' and '-'`,
    });
    await bus.close();
  });
});
