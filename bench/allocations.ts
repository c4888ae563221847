// Bytes allocated on V8's heap per request by each blog server on one workload (SQLite), and where:
// the functions that allocate most, mfx beside its peers: where a request's objects come from,
// and how each server's differ. Bytes alone are not time: 3.5 KB more per POST did not move a
// server's CPU per request (docs/decisions.md, "Per-request cost, tenth round").
//
//   node --conditions=mfx-source --import tsx bench/allocations.ts 'POST /posts' [seconds] [top]
//
// Each server runs with bench/lib/heap-sampler.mjs preloaded: after 3 s of load, V8's sampling heap
// profiler runs for `seconds` (default 4) of load, counting freed objects too. Printed per server:
// bytes per request in all, then the `top` (default 25) allocation sites, each with its caller.
// Sizes are sampled (one sample per 64 bytes on average): read differences of 50 bytes or more.
import { existsSync, mkdtempSync, readFileSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blogContenders, blogWorkload, seededBlog } from './lib/blog.js';
import { load } from './lib/load.js';
import { buildServers } from './lib/process.js';

const [only = 'POST /posts', secondsArg = '4', topArg = '25'] = process.argv.slice(2);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Resolves once `file` exists in `dir` (the sampler writes it when it has done what it was asked). */
function written(dir: string, file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (!existsSync(join(dir, file))) return;
      watcher.close();
      resolve();
    });
    if (existsSync(join(dir, file))) {
      watcher.close();
      resolve();
    }
  });
}

const frameName = ({ callFrame: f }: ProfileNode) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|runtime|bench)\//, '$1/').replace(/^file:\/\//, '')}:${f.lineNumber + 1}`;

/** Self bytes by allocation site and its caller, summed over the profile's tree. */
function bySite(head: ProfileNode): { total: number; sites: Map<string, number> } {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, caller: string) => {
    const name = frameName(node);
    if (node.selfSize > 0) {
      total += node.selfSize;
      const site = `${name}  ← ${caller}`;
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, name);
  };
  walk(head, '(root)');
  return { total, sites };
}

buildServers();
const blog = await seededBlog();
const workload = blogWorkload(blog, only);
const dir = mkdtempSync(join(tmpdir(), 'mfx-alloc-'));
process.env.MFX_HEAP_SAMPLES = dir;
for (const contender of blogContenders(blog, ['--import', join(import.meta.dirname, 'lib/heap-sampler.mjs')])) {
  const server = await contender.start();
  try {
    await load(server.url, workload, 3);
    process.kill(server.pid, 'SIGUSR2');
    await written(dir, `${server.pid}.started`);
    const { requests } = await load(server.url, workload, Number(secondsArg));
    process.kill(server.pid, 'SIGUSR2');
    await written(dir, `${server.pid}.heapprofile`);
    const { total, sites } = bySite((JSON.parse(readFileSync(join(dir, `${server.pid}.heapprofile`), 'utf8')) as { head: ProfileNode }).head);
    console.log(`\n${contender.label}: ${(total / requests).toFixed(0)} bytes allocated per request (${requests} requests)`);
    for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`  ${(bytes / requests).toFixed(0).padStart(6)}  ${site}`);
  } finally {
    await server.stop();
  }
}
