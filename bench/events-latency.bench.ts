// Issue 21: end-to-end delivery latency of each broker bus, from the call to
// publish() to the subscriber's handler receiving the event, p50 and p99.
// One event in flight at a time (the next is published once the previous
// arrived), after a warm-up, on the brokers of this machine: Redis Streams
// (@mfx/events-redis), NATS JetStream (@mfx/events-nats, a stream made for
// the run) and RabbitMQ (@mfx/events-amqp). `npm run bench -- events-latency`.
//
// Then the measure, commit → webhook receipt: an in-process mfx app on
// a copy of the seeded blog (SQLite) publishes each Post create
// (`publishEvents`) either on the broker bus itself (sent after the commit) or
// through the transactional outbox relaying to it (BENCH_OUTBOX_INTERVAL,
// default 10 ms, between relay looks when idle); a subscriber on the broker
// POSTs each event with `webhook()` to a local receiver. The clock starts when
// the write's transaction has committed (a write observer's afterCommit) and
// stops when the receiver has the webhook's body; one POST at a time.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'nats';
import { Redis } from 'ioredis';
import { amqpBus } from '@mfx/events-amqp';
import { natsBus } from '@mfx/events-nats';
import { redisStreamBus } from '@mfx/events-redis';
import { createServer, loadManifest, openSqlite, outboxBus, publishEvents, silentLogger, webhook, type EventBus, type MfxEvent } from '@mfx/runtime';
import { seededBlog, type SeededBlog } from './lib/blog.js';

const WARMUP = 100;
const SAMPLES = Number(process.env.BENCH_EVENTS ?? 1000);

function event(): MfxEvent {
  return {
    id: randomUUID(),
    type: 'post.created',
    model: 'Post',
    recordId: randomUUID(),
    data: { title: 'Notes on the Engine', views: 3, status: 'draft' },
    tenantId: null,
    actorId: 'u1',
    requestId: 'bench',
    time: new Date().toISOString(),
    headers: {},
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Publishes one event at a time and times each until the handler has it. */
interface Latency {
  p50: number;
  p99: number;
  max: number;
}

function summary(samples: number[]): Latency {
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1]! };
}

async function measure(bus: EventBus): Promise<Latency> {
  let arrived: ((id: string) => void) | null = null;
  const sub = await bus.subscribe({ name: `bench-${randomUUID().slice(0, 8)}`, patterns: ['post.*'], handler: (e) => arrived?.(e.id) });
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const e = event();
    const received = new Promise<void>((resolve) => {
      arrived = (id) => id === e.id && resolve();
    });
    const start = performance.now();
    await bus.publish([e]);
    await received;
    if (i >= WARMUP) samples.push(performance.now() - start);
  }
  await sub.close();
  return summary(samples);
}

/** One broker bus of this machine, made for one measurement, and how to remove what it made. */
interface Broker {
  name: string;
  open(): Promise<{ bus: EventBus; cleanup(): Promise<void> }>;
}

const brokers: Broker[] = [
  {
    name: 'redis-streams',
    open: async () => {
      const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
      const stream = `mfx:bench:${randomUUID()}`;
      const bus = redisStreamBus({ url, stream });
      return {
        bus,
        cleanup: async () => {
          await bus.close();
          const admin = new Redis(url);
          await admin.del(stream);
          await admin.quit();
        },
      };
    },
  },
  {
    name: 'nats',
    open: async () => {
      const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
      const name = `MFX_BENCH_${randomUUID().slice(0, 8)}`;
      const admin = await connect({ servers });
      const jsm = await admin.jetstreamManager();
      await jsm.streams.add({ name, subjects: [`${name.toLowerCase()}.>`] });
      const bus = await natsBus({ servers, stream: name });
      return {
        bus,
        cleanup: async () => {
          await bus.close();
          await jsm.streams.delete(name);
          await admin.close();
        },
      };
    },
  },
  {
    name: 'amqp',
    open: async () => {
      const bus = await amqpBus({ url: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', exchange: `mfx.bench.${randomUUID().slice(0, 8)}`, queueOptions: { expires: 60_000 } });
      return { bus, cleanup: () => bus.close() };
    },
  },
];

async function publishToHandler(broker: Broker): Promise<Latency> {
  const { bus, cleanup } = await broker.open();
  try {
    return await measure(bus);
  } finally {
    await cleanup();
  }
}

/** A local webhook receiver: when each record's event arrived (it may arrive before the POST's answer). */
async function receiver(): Promise<{ url: string; arrival(recordId: string): Promise<number>; close(): Promise<void> }> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const recordId = (JSON.parse(body) as MfxEvent).recordId;
      if (!recordId) return;
      const waiter = waiting.get(recordId);
      if (waiter) waiter(at);
      else arrived.set(recordId, at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrival: (recordId) => {
      const at = arrived.get(recordId);
      if (at !== undefined) {
        arrived.delete(recordId);
        return Promise.resolve(at);
      }
      return new Promise((resolve) => waiting.set(recordId, (when) => (waiting.delete(recordId), resolve(when))));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Commit → webhook receipt of Post creates sent over HTTP to an in-process mfx app, one at a time. */
async function commitToWebhook(blog: SeededBlog, broker: Broker, viaOutbox: boolean): Promise<Latency> {
  const { bus, cleanup } = await broker.open();
  const hooks = await receiver();
  const committed = new Map<string, number>();
  const app = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
  app.register(loadManifest(blog.manifestDir));
  const adapter = openSqlite(blog.copy(), app.registry);
  app.setDB(adapter);
  const published = viaOutbox ? outboxBus(() => app.db, { relayTo: bus, interval: process.env.BENCH_OUTBOX_INTERVAL ?? '10ms' }) : bus;
  app.use('db', publishEvents(published), { position: 'after', models: ['Post'], ops: ['create'] });
  app.observeWrites({ name: 'bench-commit-clock', ops: ['create'], observe: (_tx, change) => change.caller.afterCommit(() => committed.set(String(change.id), performance.now())) }, { models: ['Post'] });
  const subscription = await bus.subscribe({ name: `bench-hook-${randomUUID().slice(0, 8)}`, patterns: ['post.*'], handler: webhook({ url: hooks.url }) });
  const { url } = await app.start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const { status, text } = await post(`${url}/posts`, { title: `Latency ${i}`, body: 'Timed.', status: 'published', views: 1, userId: blog.userIds[0] }, agent);
      if (status !== 201) throw new Error(`POST /posts answered ${status}: ${text}`);
      const recordId = String((JSON.parse(text) as { data: { id: string } }).data.id);
      const at = await hooks.arrival(recordId);
      if (i >= WARMUP) samples.push(at - committed.get(recordId)!);
      committed.delete(recordId);
    }
  } finally {
    agent.destroy();
    await subscription.close();
    await app.stop();
    await hooks.close();
    await cleanup();
  }
  return summary(samples);
}

function post(url: string, body: unknown, agent: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const row = (name: string, { p50, p99, max }: Latency) => `${name.padEnd(22)} ${p50.toFixed(3).padStart(7)}  ${p99.toFixed(3).padStart(7)}  ${max.toFixed(3).padStart(7)}`;

export async function main(): Promise<void> {
  console.log(`publish → handler latency, ${SAMPLES} events one at a time after ${WARMUP} of warm-up (ms)`);
  console.log(`${'broker'.padEnd(22)}     p50      p99      max`);
  for (const broker of brokers) console.log(row(broker.name, await publishToHandler(broker)));

  const blog = await seededBlog();
  console.log(`\ncommit → webhook receipt of Post creates through mfx (SQLite), ${SAMPLES} one at a time after ${WARMUP} of warm-up (ms);`);
  console.log(`"outbox" relays from mfx_outbox every ${process.env.BENCH_OUTBOX_INTERVAL ?? '10ms'} when idle`);
  console.log(`${'path'.padEnd(22)}     p50      p99      max`);
  for (const broker of brokers) {
    console.log(row(`${broker.name} direct`, await commitToWebhook(blog, broker, false)));
    console.log(row(`${broker.name} outbox`, await commitToWebhook(blog, broker, true)));
  }
}
