// Issue 18: uploading and downloading a 1 MB file through mfx (`mfx serve
// --files DIR`: POST /api/files with the part `file`, GET /api/files/<key>)
// beside a hand-written node:http + busboy server (bench/baselines/files-raw.ts)
// streaming to the same disk the same way (a temporary file renamed into
// place, the metadata beside it). Every run gets a fresh process and a fresh
// storage directory, removed when it stops; rounds interleave. The goal is
// mfx at 0.8 or more of the hand-written server's throughput.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { compare, type Contender, selected, type Workload } from './lib/load.js';
import { median } from './lib/proc.js';
import { type Child, startBaseline, startMfx } from './lib/process.js';

const GOAL = 0.8;
const FILE_BYTES = 1024 * 1024;
const BOUNDARY = 'mfx-bench-boundary-3f9a';

/** One multipart body with the part `file` (FILE_BYTES random bytes), sent as it is by every upload. */
function uploadBody(bytes: Buffer): { contentType: string; bytes: Buffer } {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="report.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    bytes: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
  };
}

async function post(base: string, body: { contentType: string; bytes: Buffer }): Promise<{ status: number; json: { data: { key: string } } }> {
  const res = await fetch(`${base}/files`, { method: 'POST', headers: { 'content-type': body.contentType }, body: new Uint8Array(body.bytes) });
  return { status: res.status, json: (await res.json()) as { data: { key: string } } };
}

/** A server of one kind on a fresh storage directory, removed with it. */
async function onFreshDir(start: (dir: string) => Promise<Child>): Promise<Child> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-files-'));
  const child = await start(dir);
  return { ...child, stop: () => child.stop().then(() => rmSync(dir, { recursive: true, force: true })) };
}

export async function main(): Promise<void> {
  const manifestDir = await fixtureManifestDir('blog');
  const content = randomBytes(FILE_BYTES);
  const body = uploadBody(content);
  const servers: Record<string, (dir: string) => Promise<Child>> = {
    mfx: (dir) => startMfx(manifestDir, 'sqlite::memory:', [], ['--files', dir]),
    raw: (dir) => startBaseline('files-raw', ['--dir', dir]),
  };
  // Upload: the base URL is the server's; download: a file uploaded to the fresh server first, its URL the base.
  const uploading = (name: string): Contender => ({ name, label: `${name} upload`, start: () => onFreshDir(servers[name]!) });
  const downloading = (name: string): Contender => ({
    name,
    label: `${name} download`,
    async start() {
      const child = await onFreshDir(servers[name]!);
      const { status, json } = await post(child.url, body);
      if (status !== 201) throw new Error(`${name}: POST /files answered ${status} ${JSON.stringify(json)}`);
      return { ...child, url: `${child.url}/files/${json.data.key}` };
    },
  });
  await checkAnswers(servers, body, content);

  const workloads = selected([
    { name: 'upload 1 MB', method: 'POST', path: '/files', raw: body },
    { name: 'download 1 MB', path: '' },
  ] satisfies Workload[]);
  console.log(`a ${FILE_BYTES / 1024 / 1024} MB file; mfx serve --files DIR beside node:http + busboy (bench/baselines/files-raw.ts), each on a fresh directory under ${tmpdir()}`);
  const missed: string[] = [];
  for (const workload of workloads) {
    const contenders = workload.method === 'POST' ? [uploading('mfx'), uploading('raw')] : [downloading('mfx'), downloading('raw')];
    const row = await compare(workload, contenders);
    const mfx = row.samples.get('mfx')!;
    const raw = row.samples.get('raw')!;
    const rps = mfx.map((s, i) => s.rps / raw[i]!.rps);
    const cpu = mfx.map((s, i) => s.cpuUs / raw[i]!.cpuUs);
    const errors = [...mfx, ...raw].reduce((n, s) => n + s.errors + s.non2xx, 0);
    const met = median(rps) >= GOAL;
    if (!met) missed.push(`${workload.name}: mfx/raw ${median(rps).toFixed(3)} < ${GOAL}`);
    const spread = (values: number[]) => `${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;
    console.log(`\n${workload.name}`);
    console.log(`  req/s: mfx ${median(mfx.map((s) => s.rps)).toFixed(0)}, raw ${median(raw.map((s) => s.rps)).toFixed(0)}   CPU µs/req: mfx ${median(mfx.map((s) => s.cpuUs)).toFixed(0)}, raw ${median(raw.map((s) => s.cpuUs)).toFixed(0)}`);
    console.log(`  peak RSS MB: mfx ${Math.max(...mfx.map((s) => s.peakMb)).toFixed(0)}, raw ${Math.max(...raw.map((s) => s.peakMb)).toFixed(0)}`);
    console.log(`  mfx/raw: req/s ${spread(rps)}   CPU/req ${spread(cpu)}   goal req/s ≥ ${GOAL}: ${met ? 'met' : 'MISSED'}`);
    if (errors) console.log(`  ${errors} errors or non-2xx answers`);
  }
  console.log(`\n${Number(process.env.BENCH_ROUNDS ?? 5)} rounds, a fresh server and directory per contender per round; ratios are mfx over raw per round, median (min–max).`);
  console.log(missed.length ? `\nMISSED:\n  ${missed.join('\n  ')}` : '\nevery goal met');
}

/** Both servers answer an upload alike (status, data keys) and give back the very bytes; says where they differ. */
async function checkAnswers(servers: Record<string, (dir: string) => Promise<Child>>, body: { contentType: string; bytes: Buffer }, content: Buffer): Promise<void> {
  for (const [name, start] of Object.entries(servers)) {
    const child = await onFreshDir(start);
    try {
      const { status, json } = await post(child.url, body);
      const keys = Object.keys(json.data ?? {}).sort().join(',');
      if (status !== 201 || keys !== 'contentType,filename,key,size') console.log(`ANSWERS DIFFER: ${name} answers the upload ${status} ${JSON.stringify(json).slice(0, 300)}`);
      const res = await fetch(`${child.url}/files/${json.data.key}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200 || !bytes.equals(content)) console.log(`ANSWERS DIFFER: ${name} answers the download ${res.status} with ${bytes.length} bytes that are ${bytes.equals(content) ? '' : 'not '}the upload's`);
    } finally {
      await child.stop();
    }
  }
}
