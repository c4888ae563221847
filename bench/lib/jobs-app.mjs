// The `--app` module of bench/instructions.ts for issue 22 (what a transactional enqueue costs a
// POST), the server form of `npm run bench -- jobs`: POST /posts in a transaction (transaction()),
// and with BENCH_ENQUEUE=1 a job enqueued on the SQL queue in that transaction by a handler-less
// worker's app (nobody works the jobs off: only the enqueue is counted). Compare
//   CG_SERVE_ARGS='--app bench/lib/jobs-app.mjs' node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
//   BENCH_ENQUEUE=1 CG_SERVE_ARGS='--app bench/lib/jobs-app.mjs' node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
import { memoryQueue, sqlQueue, transaction } from '@mfx/runtime';

export default function jobs(app) {
  app.use('service', transaction(), { models: ['Post'], ops: ['create'] });
  if (process.env.BENCH_ENQUEUE !== '1') {
    app.jobs({ queue: memoryQueue(), handlers: {}, statusRoutes: false, pollMs: 3_600_000 });
    return;
  }
  app.jobs({ queue: sqlQueue(app.db), handlers: {}, concurrency: 1, pollMs: 3_600_000 });
  app.use('db', async (ctx, next) => {
    await next();
    await app.enqueue({ type: 'post.created', payload: { title: ctx.body?.title } }, ctx);
  }, { models: ['Post'], ops: ['create'], position: 'after' });
}
