// Issue 6: time to build the OpenAPI document for a 200-model registry
// (goal: under 20 ms per request), beside the cost of serialising it and of
// a whole GET /openapi.json over HTTP. Figures only; timings are never asserted.
import { createServer, loadManifest, openSqlite, silentLogger } from '@mfx/runtime';
import { manyModelsManifest } from './lib/many-models.js';

const MODELS = 200;
const ROUNDS = 200;
const GOAL_MS = 20;

function stats(samples: number[]): { min: number; median: number; p95: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { min: sorted[0], median: at(0.5), p95: at(0.95), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

export async function main(): Promise<void> {
  const compileStart = performance.now();
  const dir = await manyModelsManifest(MODELS);
  console.log(`${MODELS} generated models compiled or loaded from cache in ${ms(performance.now() - compileStart)}`);

  const app = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false, documentation: { public: true } });
  app.register(loadManifest(dir));
  app.setDB(openSqlite(':memory:', app.registry));
  const { url } = await app.start();

  // Warm up the JIT before measuring.
  for (let i = 0; i < 20; i++) app.document();
  const build: number[] = [];
  const serialise: number[] = [];
  let bytes = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const doc = app.document();
    const t1 = performance.now();
    bytes = JSON.stringify(doc).length;
    const t2 = performance.now();
    build.push(t1 - t0);
    serialise.push(t2 - t1);
  }
  const http: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url.replace('localhost', '127.0.0.1')}/openapi.json`);
    await res.arrayBuffer();
    http.push(performance.now() - t0);
  }
  await app.stop();

  const b = stats(build);
  const s = stats(serialise);
  const h = stats(http);
  const doc = app.document() as { paths: object; components: { schemas: object } };
  console.log(`document: ${Object.keys(doc.paths).length} paths, ${Object.keys(doc.components.schemas).length} schemas, ${(bytes / 1024 / 1024).toFixed(2)} MB of JSON`);
  console.log(`build (registry → document), ${ROUNDS} rounds: min ${ms(b.min)}, median ${ms(b.median)}, p95 ${ms(b.p95)}, mean ${ms(b.mean)}  (goal < ${GOAL_MS} ms: ${b.median < GOAL_MS ? 'met' : 'NOT met'})`);
  console.log(`(the machine is shared: min is the uncontended figure, median and p95 include waiting for a CPU)`);
  console.log(`JSON.stringify: median ${ms(s.median)}, p95 ${ms(s.p95)}`);
  console.log(`GET /openapi.json over HTTP (build + serialise + send), 50 requests: median ${ms(h.median)}, p95 ${ms(h.p95)}`);
}
