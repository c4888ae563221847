// `mfx serve --files DIR`: disk storage from the command line, and a 30 MB
// upload streamed through a separate server process whose memory (RSS, read
// from /proc as the bytes go out) stays flat: the file is never held whole.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { sqliteFileBackend } from '../support/backends.js';
import { cliSuite, servingUrl } from '../support/cli.js';
import { BOUNDARY, patterned } from '../support/file-storage.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { eachBackend, postgres } from '../support/suite.js';

const MB = 1024 * 1024;
const UPLOAD = 30 * MB;
const CHUNK = 256 * 1024;
/** What the server may grow by while a 30 MB upload streams through it; holding the file would take 30 MB. */
const RSS_GROWTH_LIMIT = 12 * MB;

/**
 * The measured server's --app module: a measurement aid that collects
 * young garbage every 10 ms (all of it every 500 ms). Without it RSS shows garbage too: V8 frees the
 * socket's spent read buffers only when a collection runs, which their
 * external memory alone forces only past 64 MB, so a streamed upload of
 * 30 MB and one held whole would look alike.
 */
const COLLECTING_APP = `import v8 from 'node:v8';
import vm from 'node:vm';
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
export default function collectGarbage() {
  let ticks = 0;
  setInterval(() => (++ticks % 50 === 0 ? gc() : gc({ type: 'minor' })), 10).unref();
}
`;

/** The server process's resident memory, in bytes. */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/**
 * Streams a multipart body with one file part of `size` bytes (generated
 * chunk by chunk, never held whole by the client either) and samples the
 * server's RSS each time a chunk has been handed to the socket.
 */
function streamUpload(url: string, pid: number, fields: Record<string, string>, part: string, size: number): Promise<{ status: number; body: any; peak: number; sha256: string }> {
  const head = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part}"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const target = new URL(url);
  const hash = createHash('sha256');
  let peak = 0;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': head.length + size + tail.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), peak, sha256: hash.digest('hex') }));
      },
    );
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const chunk = patterned(Math.min(CHUNK, size - sent), sent / CHUNK);
        sent += chunk.length;
        hash.update(chunk);
        const more = req.write(chunk, () => (peak = Math.max(peak, rss(pid))));
        if (!more) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
}

async function sha256Of(url: string): Promise<{ status: number; sha256: string; length: number }> {
  const res = await fetch(url);
  const hash = createHash('sha256');
  let length = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    length += chunk.length;
  }
  return { status: res.status, sha256: hash.digest('hex'), length };
}

eachBackend(
  'mfx serve --files',
  (backend) => {
    const cli = cliSuite(backend);
    let manifest: string;
    let dir: string;
    let appModule: string;
    before(async () => {
      manifest = await fixtureManifestDir('files');
      dir = mkdtempSync(join(tmpdir(), 'mfx-serve-files-'));
      appModule = join(mkdtempSync(join(tmpdir(), 'mfx-serve-app-')), 'collect-garbage.mjs');
      writeFileSync(appModule, COLLECTING_APP);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('stores on disk in DIR, and streams a 30 MB upload with the server memory staying flat', async (t) => {
      const db = await cli.database();
      const serve = cli.start(['serve', '--manifest', manifest, '--port', '0', '--db', db.url, '--files', dir, '--app', appModule]);
      const url = await servingUrl(serve);
      const pid = serve.child.pid!;
      // Warm up both routes (busboy, the code paths, the storage directory, the database) before the baseline.
      assert.equal((await streamUpload(`${url}/files`, pid, {}, 'file', MB)).status, 201);
      assert.equal((await streamUpload(`${url}/profiles`, pid, { name: 'warm-up' }, 'attachment', MB)).status, 201);
      const baseline = rss(pid);
      const big = await streamUpload(`${url}/files`, pid, {}, 'file', UPLOAD);
      assert.equal(big.status, 201, JSON.stringify(big.body));
      assert.equal(big.body.data.size, UPLOAD);
      t.diagnostic(`POST /files of 30 MB: server RSS ${(baseline / MB).toFixed(1)} MB before, peak ${(big.peak / MB).toFixed(1)} MB while streaming`);
      assert.ok(big.peak - baseline < RSS_GROWTH_LIMIT, `RSS grew by ${((big.peak - baseline) / MB).toFixed(1)} MB during a 30 MB upload`);
      const got = await sha256Of(`${url}/files/${big.body.data.key}`);
      assert.deepEqual(got, { status: 200, sha256: big.sha256, length: UPLOAD });
      assert.equal(readFileSync(join(dir, big.body.data.key)).length, UPLOAD, 'the bytes are in DIR under the key');

      t.diagnostic(`after downloading it: server RSS ${(rss(pid) / MB).toFixed(1)} MB`);

      // The download's buffers were freed, not necessarily handed back to the system: a new baseline.
      const before = rss(pid);
      const created = await streamUpload(`${url}/profiles`, pid, { name: 'big attachment' }, 'attachment', UPLOAD);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      t.diagnostic(`multipart create with a 30 MB file: server RSS ${(before / MB).toFixed(1)} MB before, peak ${(created.peak / MB).toFixed(1)} MB`);
      assert.ok(created.peak - before < RSS_GROWTH_LIMIT, `RSS grew by ${((created.peak - before) / MB).toFixed(1)} MB during a 30 MB multipart create`);
      assert.equal((await sha256Of(`${url}/files/${created.body.data.attachment}`)).sha256, created.sha256);
      assert.deepEqual(await readdir(join(dir, '.tmp')), [], 'no unfinished write is left in DIR');
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    });
  },
  [sqliteFileBackend, postgres],
);
