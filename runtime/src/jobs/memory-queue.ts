/**
 * The in-process queue: jobs live in this process only (lost on exit), for
 * tests and single-process apps. Same contract as the durable queues,
 * leases included.
 */
import { randomUUID } from 'node:crypto';
import { type ClaimedJob, type ClaimOptions, DuplicateJobError, JobCancelError, type JobQueue, type NackOptions, type NewJob, normaliseJob, type QueuedJob } from './types.js';

interface Entry {
  job: QueuedJob;
  seq: number;
  /** Epoch ms before which it is not handed out. */
  dueAt: number;
  /** The holder's token and lease end while running. */
  claim: { token: string; until: number } | null;
}

/**
 * An in-process job queue.
 *
 * @example
 * app.jobs({ queue: memoryQueue(), handlers: { 'mail.send': async (job) => { await send(job.payload); return {}; } } });
 */
export function memoryQueue(): JobQueue {
  const entries = new Map<string, Entry>();
  let seq = 0;
  let closed = false;
  const live = (entry: Entry, now: number) => entry.claim !== null && entry.claim.until > now;
  const holds = (job: ClaimedJob) => {
    const entry = entries.get(job.id);
    return entry?.claim?.token === job.token ? entry : undefined;
  };
  const open = () => {
    if (closed) throw new Error('the memory queue is closed');
  };

  return {
    kind: 'memory',
    transactional: false,
    async enqueue(jobs: readonly NewJob[]) {
      open();
      const made = jobs.map((job) => normaliseJob(job, randomUUID));
      const ids = new Set<string>();
      for (const job of made) {
        if (entries.has(job.id) || ids.has(job.id)) throw new DuplicateJobError(job.id);
        ids.add(job.id);
      }
      for (const job of made) entries.set(job.id, { job, seq: seq++, dueAt: job.notBefore?.getTime() ?? 0, claim: null });
      return made.map((job) => job.id);
    },
    async claim({ limit, leaseMs }: ClaimOptions) {
      open();
      const now = Date.now();
      const busy = new Set<string>();
      for (const entry of entries.values()) if (live(entry, now) && entry.job.groupKey !== null) busy.add(entry.job.groupKey);
      const claimed: ClaimedJob[] = [];
      for (const entry of [...entries.values()].sort((a, b) => a.seq - b.seq)) {
        if (claimed.length >= limit) break;
        if (live(entry, now) || entry.dueAt > now) continue;
        const group = entry.job.groupKey;
        if (group !== null && busy.has(group)) continue;
        if (group !== null) busy.add(group);
        entry.job = { ...entry.job, attempts: entry.job.attempts + 1 };
        entry.claim = { token: randomUUID(), until: now + leaseMs };
        claimed.push({ ...entry.job, token: entry.claim.token });
      }
      return claimed;
    },
    async renew(job, leaseMs) {
      const entry = holds(job);
      if (!entry) return false;
      entry.claim = { token: job.token, until: Date.now() + leaseMs };
      return true;
    },
    async ack(job) {
      const entry = holds(job);
      if (!entry) return false;
      entries.delete(job.id);
      return true;
    },
    async nack(job, options: NackOptions = {}) {
      const entry = holds(job);
      if (!entry) return false;
      if (options.refund) entry.job = { ...entry.job, attempts: Math.max(0, entry.job.attempts - 1), requeues: entry.job.requeues + 1 };
      entry.claim = null;
      entry.dueAt = Date.now() + (options.delayMs ?? 0);
      return true;
    },
    async cancel(id) {
      open();
      const entry = entries.get(id);
      if (!entry) throw new JobCancelError(id, 'unknown');
      if (live(entry, Date.now())) throw new JobCancelError(id, 'running');
      entries.delete(id);
    },
    async close() {
      closed = true;
    },
  };
}
