// CPU per request of each thread of a server, mfx beside its peers, on one blog workload
// (SQLite): where /proc's user + system time goes (the main thread, V8's helper threads,
// libuv's pool), user and system apart.
//
//   node --conditions=mfx-source --import tsx bench/threads.ts 'POST /posts' [rounds]
//
// Each server runs under --trace-gc (mfx under its bench flags too), and V8's collections of
// the measured run are summed: how many scavenges and mark-compacts, and their pause per request.
import { readFileSync } from 'node:fs';
import { blogContenders, blogWorkload, seededBlog } from './lib/blog.js';
import { load } from './lib/load.js';
import { buildServers } from './lib/process.js';
import { median, threadCpuTimes } from './lib/proc.js';

const [only = 'POST /posts', roundsArg = '3'] = process.argv.slice(2);

buildServers();
const blog = await seededBlog();
const workload = blogWorkload(blog, only);
const results = new Map<string, Map<string, { user: number[]; system: number[] }>>();
const contenders = blogContenders(blog, ['--trace-gc']);
/** Per contender: scavenges and mark-compacts per 1000 requests, and their pauses in µs per request, one entry a round. */
const collections = new Map<string, { kind: string; per1000: number; pauseUs: number }[][]>();

/** V8's --trace-gc lines in `text`, summed by kind (`Scavenge`, `Mark-Compact`, …). */
function summedCollections(text: string, requests: number): { kind: string; per1000: number; pauseUs: number }[] {
  const byKind = new Map<string, { count: number; ms: number }>();
  for (const match of text.matchAll(/ ms: (Scavenge|Mark-Compact \(reduce\)|Mark-Compact|Minor Mark-Compact)[^,]*, ([0-9.]+) \/ [0-9.]+ ms/g)) {
    const seen = byKind.get(match[1]) ?? { count: 0, ms: 0 };
    seen.count++;
    seen.ms += Number(match[2]);
    byKind.set(match[1], seen);
  }
  return [...byKind].map(([kind, { count, ms }]) => ({ kind, per1000: (count * 1000) / requests, pauseUs: (ms * 1000) / requests }));
}
for (let round = 0; round < Number(roundsArg); round++) {
  for (const contender of contenders.map((_, i) => contenders[(i + round) % contenders.length])) {
    const server = await contender.start();
    try {
      await load(server.url, workload, 3);
      const logged = readFileSync(server.logFile, 'utf8').length;
      const before = threadCpuTimes(server.pid);
      const { requests } = await load(server.url, workload, 10);
      const after = threadCpuTimes(server.pid);
      const gcs = collections.get(contender.name) ?? [];
      gcs.push(summedCollections(readFileSync(server.logFile, 'utf8').slice(logged), requests));
      collections.set(contender.name, gcs);
      const byThread = results.get(contender.name) ?? new Map();
      results.set(contender.name, byThread);
      for (const [name, times] of after) {
        const was = before.get(name) ?? { userMs: 0, systemMs: 0 };
        const seen = byThread.get(name) ?? { user: [], system: [] };
        seen.user.push(((times.userMs - was.userMs) * 1000) / requests);
        seen.system.push(((times.systemMs - was.systemMs) * 1000) / requests);
        byThread.set(name, seen);
      }
    } finally {
      await server.stop();
    }
  }
}
console.log(`\n${only}: µs per request by thread, user + system, median of ${roundsArg} rounds`);
for (const [name, byThread] of results) {
  console.log(name);
  for (const [thread, { user, system }] of byThread) {
    const u = median(user);
    const s = median(system);
    if (u + s >= 0.05) console.log(`  ${thread.padEnd(20)} user ${u.toFixed(1).padStart(6)}  system ${s.toFixed(1).padStart(6)}`);
  }
  const rounds = collections.get(name) ?? [];
  for (const kind of new Set(rounds.flatMap((r) => r.map((c) => c.kind)))) {
    const of = (f: (c: { per1000: number; pauseUs: number }) => number) => median(rounds.map((r) => r.find((c) => c.kind === kind)).map((c) => (c ? f(c) : 0)));
    console.log(`  ${kind.padEnd(20)} ${of((c) => c.per1000).toFixed(2)} per 1000 requests, pause ${of((c) => c.pauseUs).toFixed(2)} µs/request`);
  }
}
