// The jobs set-up an app holds after app.jobs(...) (runtime/src/jobs/jobs.ts), for tests that drive
// the interval scheduler's and the sweep dispatcher's ticks themselves on a pinned clock.
import type { App } from '@mfx/runtime';
import type { Jobs } from '../../runtime/src/jobs/jobs.js';

export function jobsOf(app: App): Jobs {
  const jobs = (app as unknown as { jobRunner: Jobs | null }).jobRunner;
  if (!jobs) throw new Error('call app.jobs(...) first');
  return jobs;
}
