// The job status record (spec "Job status record", DESIGN decisions table):
// the source of the JobStatus model that `app.jobs` registers. The runtime
// does not compile models, so `job-status.manifest.ts` holds what `mfx build`
// makes of this file; `npm run jobs:manifest` writes it again and
// test/jobs/status-manifest.test.ts fails while it is stale.
import type { Int, Model } from '../model.js';

/**
 * The state of one background job, written by the worker at enqueue and on
 * every transition; read-only through the API.
 * @mfx base:id=filterable|sortable, base:created_at=filterable|sortable, base:updated_at=filterable|sortable
 */
export interface JobStatus extends Model {
  /** The job's type, which selects its handler. @mfx filterable, sortable */
  type: string;
  /** @mfx index, enum:enqueued|running|succeeded|failed|dead|cancelled, filterable, sortable */
  status: string;
  /** Who enqueued the job; an authenticated caller sees only their own rows. @mfx filterable, index */
  actor_id: string | null;
  /** @mfx filterable */
  tenant_id: string | null;
  /** Handler runs started so far. @mfx filterable, sortable */
  attempts: Int;
  /** Where the result is, when the handler gave one. */
  result_url: string | null;
  /** The handler's output, when it gave one. */
  output: Record<string, unknown> | null;
  /** The last error (the final one once dead); never in a response. @mfx hidden */
  error: string | null;
  /** @mfx filterable, sortable */
  started_at: Date | null;
  /** @mfx filterable, sortable */
  completed_at: Date | null;
}
