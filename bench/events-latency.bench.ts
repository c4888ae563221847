// Issue 21: end-to-end delivery latency of each broker bus, from the call to
// publish() to the subscriber's handler receiving the event, p50 and p99.
// One event in flight at a time (the next is published once the previous
// arrived), after a warm-up, on the brokers of this machine: Redis Streams
// (@mfx/events-redis), NATS JetStream (@mfx/events-nats, a stream made for
// the run) and RabbitMQ (@mfx/events-amqp). `npm run bench -- events-latency`.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { connect } from 'nats';
import { Redis } from 'ioredis';
import { amqpBus } from '@mfx/events-amqp';
import { natsBus } from '@mfx/events-nats';
import { redisStreamBus } from '@mfx/events-redis';
import type { EventBus, MfxEvent } from '@mfx/runtime';

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
async function measure(bus: EventBus): Promise<{ p50: number; p99: number; max: number }> {
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
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1]! };
}

const brokers: { name: string; run: () => Promise<{ p50: number; p99: number; max: number }> }[] = [
  {
    name: 'redis-streams',
    run: async () => {
      const stream = `mfx:bench:${randomUUID()}`;
      const bus = redisStreamBus({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', stream });
      try {
        return await measure(bus);
      } finally {
        await bus.close();
        const admin = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
        await admin.del(stream);
        await admin.quit();
      }
    },
  },
  {
    name: 'nats',
    run: async () => {
      const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
      const name = `MFX_BENCH_${randomUUID().slice(0, 8)}`;
      const admin = await connect({ servers });
      const jsm = await admin.jetstreamManager();
      await jsm.streams.add({ name, subjects: [`${name.toLowerCase()}.>`] });
      const bus = await natsBus({ servers, stream: name });
      try {
        return await measure(bus);
      } finally {
        await bus.close();
        await jsm.streams.delete(name);
        await admin.close();
      }
    },
  },
  {
    name: 'amqp',
    run: async () => {
      const bus = await amqpBus({ url: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', exchange: `mfx.bench.${randomUUID().slice(0, 8)}`, queueOptions: { expires: 60_000 } });
      try {
        return await measure(bus);
      } finally {
        await bus.close();
      }
    },
  },
];

export async function main(): Promise<void> {
  console.log(`publish → handler latency, ${SAMPLES} events one at a time after ${WARMUP} of warm-up (ms)`);
  console.log('broker          p50      p99      max');
  for (const broker of brokers) {
    const { p50, p99, max } = await broker.run();
    console.log(`${broker.name.padEnd(14)} ${p50.toFixed(3).padStart(7)}  ${p99.toFixed(3).padStart(7)}  ${max.toFixed(3).padStart(7)}`);
  }
}
