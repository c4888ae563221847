// The consumer process of the bus contract's crash tests: opens the bus from
// the module named by argv[2] (its `openBus()`), subscribes as argv[3] to the
// pattern argv[4] (ephemeral when argv[5] is `ephemeral`), prints `ready`,
// then `received <id>` for each event and never finishes a handler, so the
// test can kill it holding the event.
import type { EventBus } from '../../runtime/src/events/types.js';

const [modulePath, name, pattern, kind] = process.argv.slice(2);
const { openBus } = (await import(modulePath!)) as { openBus(): Promise<EventBus> };
const bus = await openBus();
await bus.subscribe({
  name: name!,
  patterns: [pattern!],
  ephemeral: kind === 'ephemeral',
  handler: (event) => {
    process.stdout.write(`received ${event.id}\n`);
    return new Promise<void>(() => {});
  },
});
process.stdout.write('ready\n');
