// The `--app` module of an app with realtime mounted, for bench/instructions.ts
// (CG_SERVE_ARGS='--app bench/lib/realtime-app.mjs'): the hub on an in-process bus
// and no stream open, so a count of 'GET /posts/:id' shows what realtime costs the
// other routes (issue 16: nothing, once the SSE path is a route of the table).
import { memoryBus, realtime } from '@mfx/runtime';

export default async function withRealtime(app) {
  await app.plugin(realtime(memoryBus(), { auth: false }));
}
