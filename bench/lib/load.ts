// Load generation with autocannon and the comparison of mfx with its hand-written
// peers: interleaved rounds, a fresh server process per contender per round, and
// per measured run the requests per second, the server's CPU time per request
// (from /proc, steadier than req/s on a shared machine) and its memory under load.
import autocannon from 'autocannon';
import { cpuTimes, median, memory } from './proc.js';
import { type Child, mfxNodeFlags } from './process.js';

export interface Workload {
  name: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the server's base URL; a function picks one per request. */
  path: string | (() => string);
  body?: () => unknown;
  /** A body sent as it is, the same on every request (a multipart upload), instead of `body`'s JSON. */
  raw?: { contentType: string; bytes: Buffer };
}

export interface LoadResult {
  rps: number;
  requests: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** One measured run of one freshly started server. */
export interface Sample extends LoadResult {
  /** Server CPU time (user + system) per answered request, in µs. */
  cpuUs: number;
  /** The system part of cpuUs (the kernel's work for the server: socket and file syscalls). */
  systemUs: number;
  /** Resident set size halfway through the measured run, in MB. */
  rssMb: number;
  /** The process's peak resident set size (VmHWM) at the end of the run, in MB. */
  peakMb: number;
}

/** A server the suite measures; `name` is `mfx`, `raw` (node:http) or `fastify`. */
export interface Contender {
  name: string;
  label: string;
  start(): Promise<Child>;
}

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** One run of autocannon (BENCH_CONNECTIONS, default 10) against a server's base URL with one workload. */
export async function load(base: string, workload: Workload, durationS: number): Promise<LoadResult> {
  const pick = typeof workload.path === 'function' ? workload.path : () => workload.path as string;
  const result = await autocannon({
    url: base,
    connections: env('BENCH_CONNECTIONS', 10),
    duration: durationS,
    requests: [
      {
        method: workload.method ?? 'GET',
        setupRequest: (req) => ({
          ...req,
          path: new URL(base).pathname + pick(),
          headers: workload.raw ? { 'content-type': workload.raw.contentType } : workload.body ? { 'content-type': 'application/json' } : {},
          body: workload.raw ? workload.raw.bytes : workload.body ? JSON.stringify(workload.body()) : undefined,
        }),
      },
    ],
  });
  return { rps: result.requests.average, requests: result.requests.total, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

/** Starts the contender afresh, warms it up, measures one run (BENCH_WARMUP_S, BENCH_DURATION_S) and stops it. */
async function measureFresh(contender: Contender, workload: Workload): Promise<Sample> {
  const server = await contender.start();
  try {
    await load(server.url, workload, env('BENCH_WARMUP_S', 3));
    const durationS = env('BENCH_DURATION_S', 10);
    let rssMb = NaN;
    const halfway = setTimeout(() => (rssMb = memory(server.pid).rssMb), (durationS * 1000) / 2);
    const before = cpuTimes(server.pid);
    const result = await load(server.url, workload, durationS);
    const after = cpuTimes(server.pid);
    clearTimeout(halfway);
    const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.requests);
    return {
      ...result,
      cpuUs: perRequest(after.userMs + after.systemMs - before.userMs - before.systemMs),
      systemUs: perRequest(after.systemMs - before.systemMs),
      rssMb,
      peakMb: memory(server.pid).peakMb,
    };
  } finally {
    await server.stop();
  }
}

/** Every contender's samples of one workload, one a round. */
export interface Row {
  workload: string;
  samples: Map<string, Sample[]>;
}

/**
 * Measures every contender in BENCH_ROUNDS rounds (5 by default), each with a
 * fresh server; the order rotates every round, so a steady drift of the
 * shared machine's speed does not always favour the same contender.
 */
export async function compare(workload: Workload, contenders: Contender[], rounds = env('BENCH_ROUNDS', 5)): Promise<Row> {
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]);
    for (const contender of order) {
      const sample = await measureFresh(contender, workload);
      samples.get(contender.name)!.push(sample);
      if (process.env.BENCH_VERBOSE === '1') {
        console.log(`  round ${round + 1} ${workload.name} ${contender.name}: ${sample.rps.toFixed(0)} req/s, ${sample.cpuUs.toFixed(0)} µs CPU/req (system ${sample.systemUs.toFixed(0)}), RSS ${sample.rssMb.toFixed(0)} MB`);
      }
    }
  }
  return { workload: workload.name, samples };
}

/** The goals of one workload: mfx's req/s at least these times raw's and Fastify's. */
export interface Goal {
  raw: number;
  fastify?: number;
}

/** Issue 16: mfx's peak RSS under load. */
export const RSS_GOAL_MB = 90;

const spread = (values: number[]) => `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Prints one block per workload: each contender's medians, then mfx's ratios per round (median and min–max) against the goals. */
export function report(rows: Row[], contenders: Contender[], goals: Record<string, Goal>): string[] {
  const missed: string[] = [];
  const pad = (s: string, n: number) => s.padEnd(n);
  for (const row of rows) {
    const { workload, samples } = row;
    console.log(`\n${workload}`);
    console.log(`  ${pad('', 26)}${pad('req/s', 9)}${pad('CPU µs/req', 12)}${pad('of it sys', 11)}${pad('p99 ms', 8)}${pad('RSS MB', 8)}peak MB`);
    for (const c of contenders) {
      const s = samples.get(c.name)!;
      const m = (f: (x: Sample) => number) => median(s.map(f));
      console.log(`  ${pad(c.label, 26)}${pad(m((x) => x.rps).toFixed(0), 9)}${pad(m((x) => x.cpuUs).toFixed(0), 12)}${pad(m((x) => x.systemUs).toFixed(0), 11)}${pad(m((x) => x.p99).toFixed(0), 8)}${pad(m((x) => x.rssMb).toFixed(0), 8)}${Math.max(...s.map((x) => x.peakMb)).toFixed(0)}`);
      const errors = s.reduce((n, x) => n + x.errors + x.non2xx, 0);
      if (errors) console.log(`    ${errors} errors or non-2xx answers`);
    }
    const mfx = samples.get('mfx')!;
    const goal = goals[workload];
    for (const peer of ['raw', 'fastify'] as const) {
      const theirs = samples.get(peer);
      if (!theirs) continue;
      const rps = mfx.map((x, i) => x.rps / theirs[i].rps);
      const cpu = mfx.map((x, i) => x.cpuUs / theirs[i].cpuUs);
      const min = goal?.[peer];
      const met = min === undefined ? '' : `   goal ≥ ${min.toFixed(2)}: ${verdict(median(rps) >= min)}`;
      if (min !== undefined && median(rps) < min) missed.push(`${workload}: mfx/${peer} ${median(rps).toFixed(3)} < ${min}`);
      console.log(`  mfx/${pad(peer, 8)} req/s ${spread(rps)}   CPU/req ${spread(cpu)}${met}`);
    }
    const peak = Math.max(...mfx.map((x) => x.peakMb));
    if (peak >= RSS_GOAL_MB) missed.push(`${workload}: mfx peak RSS ${peak.toFixed(0)} MB ≥ ${RSS_GOAL_MB}`);
    console.log(`  mfx peak RSS under load < ${RSS_GOAL_MB} MB: ${verdict(peak < RSS_GOAL_MB)}`);
  }
  return missed;
}

/** The workloads whose name contains BENCH_ONLY (all when unset), to measure one while working on it. */
export function selected(workloads: Workload[]): Workload[] {
  const only = process.env.BENCH_ONLY;
  return only ? workloads.filter((w) => w.name.includes(only)) : workloads;
}

// Headers whose values or presence are the transport's, not the application's.
const transportHeaders = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** What a contender answers to one request: status, header names, and the body (a create's field names only: its values differ per call). */
async function answerOf(url: string, workload: Workload, path: string, body: unknown): Promise<string> {
  const res = await fetch(url + path, { method: workload.method ?? 'GET', headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const headers = [...res.headers.keys()].filter((h) => !transportHeaders.has(h)).sort();
  const json = (await res.json()) as { data?: object };
  return JSON.stringify({ status: res.status, headers, body: workload.method === 'POST' && json.data ? Object.keys(json.data) : json });
}

/**
 * Asks every contender the same request of each workload and says where the
 * answers differ (status, headers, body; a create's keys), so that a peer
 * that drifted from what mfx answers is seen before its figures are trusted.
 */
async function checkAnswers(workloads: Workload[], contenders: Contender[]): Promise<void> {
  const servers = await Promise.all(contenders.map((c) => c.start()));
  // Reads are asked first: a create adds a row under a random id to each server's database, which moves the pages after it differently in each.
  const isRead = (w: Workload) => (w.method ?? 'GET') === 'GET';
  const ordered = [...workloads.filter(isRead), ...workloads.filter((w) => !isRead(w))];
  try {
    for (const workload of ordered) {
      const path = typeof workload.path === 'function' ? workload.path() : workload.path;
      const body = workload.body?.();
      const answers = await Promise.all(servers.map((s) => answerOf(s.url, workload, path, body)));
      answers.forEach((answer, i) => {
        if (answer !== answers[0]) console.log(`ANSWERS DIFFER on ${workload.name} ${path}: ${contenders[i].name} answers ${answer.slice(0, 400)}\n  mfx answers ${answers[0].slice(0, 400)}`);
      });
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/** Checks the answers, measures every selected workload on every contender and prints the table against the goals. */
export async function runSuite(contenders: Contender[], workloads: Workload[], goals: Record<string, Goal>): Promise<void> {
  const chosen = selected(workloads);
  await checkAnswers(chosen, contenders);
  const rows: Row[] = [];
  for (const workload of chosen) rows.push(await compare(workload, contenders));
  const rounds = rows[0]?.samples.get('mfx')?.length ?? 0;
  console.log(
    `\n${rounds} rounds, a fresh server per contender per round; ${env('BENCH_DURATION_S', 10)} s measured after ${env('BENCH_WARMUP_S', 3)} s of warm-up, ${env('BENCH_CONNECTIONS', 10)} connections.` +
      `\nMedians over rounds; ratios are mfx over the peer per round, median (min–max). CPU is the server process's user + system time per request.` +
      `\nmfx runs under node ${mfxNodeFlags.join(' ') || '(no flags)'} (docs/deployment.md, Memory); the peers under node's defaults.`,
  );
  const missed = report(rows, contenders, goals);
  console.log(missed.length ? `\nMISSED:\n  ${missed.join('\n  ')}` : '\nevery goal met');
}
