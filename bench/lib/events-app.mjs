// The `--app` module of `npm run bench -- events` (and of bench/instructions.ts with
// CG_SERVE_ARGS='--app bench/lib/events-app.mjs'): publishEvents on every Post write through
// the transactional outbox, whose relay ships to an in-process bus with one counting subscriber.
import { memoryBus, outboxBus, publishEvents } from '@mfx/runtime';

export default async function events(app) {
  const relayTo = memoryBus();
  let delivered = 0;
  await relayTo.subscribe({ name: 'bench-count', patterns: ['post.*'], handler: () => void delivered++ });
  const outbox = outboxBus(() => app.db, { relayTo, interval: process.env.BENCH_OUTBOX_INTERVAL ?? '1s' });
  app.use('db', publishEvents(outbox), { position: 'after', models: ['Post'] });
  process.once('beforeExit', () => console.log(`events delivered: ${delivered}`));
}
