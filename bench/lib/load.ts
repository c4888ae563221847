// Load generation with autocannon: a warm-up, then a measured run.
import autocannon from 'autocannon';

export interface Workload {
  name: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the server's base URL; a function picks one per request. */
  path: string | (() => string);
  body?: () => unknown;
}

export interface LoadResult {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  connections?: number;
  durationS?: number;
  warmupS?: number;
}

async function run(base: string, workload: Workload, durationS: number, connections: number): Promise<LoadResult> {
  const pick = typeof workload.path === 'function' ? workload.path : () => workload.path as string;
  const result = await autocannon({
    url: base,
    connections,
    duration: durationS,
    requests: [
      {
        method: workload.method ?? 'GET',
        setupRequest: (req) => ({
          ...req,
          path: new URL(base).pathname + pick(),
          headers: workload.body ? { 'content-type': 'application/json' } : {},
          body: workload.body ? JSON.stringify(workload.body()) : undefined,
        }),
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

/** Warm-up, then the measured run (10 connections, 10 s by default). */
export async function measure(base: string, workload: Workload, options: LoadOptions = {}): Promise<LoadResult> {
  const connections = options.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 10);
  await run(base, workload, options.warmupS ?? Number(process.env.BENCH_WARMUP_S ?? 3), connections);
  return run(base, workload, options.durationS ?? Number(process.env.BENCH_DURATION_S ?? 10), connections);
}

export interface Row {
  workload: string;
  mfx: LoadResult;
  baseline: LoadResult;
}

export function report(rows: Row[], goals: Record<string, number>): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`${pad('workload', 44)}${pad('mfx req/s', 12)}${pad('p99 ms', 9)}${pad('base req/s', 12)}${pad('p99 ms', 9)}${pad('ratio', 8)}goal`);
  for (const { workload, mfx, baseline } of rows) {
    const ratio = mfx.rps / baseline.rps;
    const goal = goals[workload];
    console.log(
      `${pad(workload, 44)}${pad(mfx.rps.toFixed(0), 12)}${pad(String(mfx.p99), 9)}${pad(baseline.rps.toFixed(0), 12)}${pad(String(baseline.p99), 9)}${pad(ratio.toFixed(2), 8)}${goal ? `${goal} ${ratio >= goal ? 'met' : 'MISSED'}` : ''}`,
    );
    if (mfx.errors || mfx.non2xx || baseline.errors || baseline.non2xx) {
      console.log(`  errors: mfx ${mfx.errors}/${mfx.non2xx} non-2xx, baseline ${baseline.errors}/${baseline.non2xx} non-2xx`);
    }
  }
}

export interface Contender {
  url: string;
}

/**
 * Measures mfx and its baseline in alternating rounds (the machine is shared
 * and its speed drifts) and keeps the round with the median ratio. Which of
 * the two goes first alternates too, so a steady drift does not always
 * favour the one measured second.
 */
export async function compare(workload: Workload, mfx: Contender, baseline: Contender, rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<Row> {
  const results: Row[] = [];
  for (let round = 0; round < rounds; round++) {
    let a: LoadResult;
    let b: LoadResult;
    if (round % 2 === 0) {
      a = await measure(mfx.url, workload);
      b = await measure(baseline.url, workload);
    } else {
      b = await measure(baseline.url, workload);
      a = await measure(mfx.url, workload);
    }
    results.push({ workload: workload.name, mfx: a, baseline: b });
    if (process.env.BENCH_VERBOSE === '1') {
      console.log(`  round ${round + 1}: ${workload.name}: mfx ${a.rps.toFixed(0)} req/s, baseline ${b.rps.toFixed(0)} req/s, ratio ${(a.rps / b.rps).toFixed(2)}`);
    }
  }
  results.sort((x, y) => x.mfx.rps / x.baseline.rps - y.mfx.rps / y.baseline.rps);
  return results[Math.floor(results.length / 2)];
}

/** The workloads whose name contains BENCH_ONLY (all when unset), to measure one while working on it. */
export function selected(workloads: Workload[]): Workload[] {
  const only = process.env.BENCH_ONLY;
  return only ? workloads.filter((w) => w.name.includes(only)) : workloads;
}

/**
 * Measures every selected workload on mfx beside its baseline, stops both
 * servers whatever happens, and prints the table against the goals.
 */
export async function runSuite(
  servers: { mfx: Contender & { stop(): Promise<void> }; baseline: Contender & { stop(): Promise<void> } },
  workloads: Workload[],
  goals: Record<string, number>,
): Promise<void> {
  const rows: Row[] = [];
  try {
    for (const workload of selected(workloads)) rows.push(await compare(workload, servers.mfx, servers.baseline));
  } finally {
    await servers.mfx.stop();
    await servers.baseline.stop();
  }
  report(rows, goals);
}
