// The end-to-end suite of file fields, multipart writes and the /files routes
// (spec: file fields, multipart, standalone file routes, Limits, Errors, file
// cleanup), on every backend, for one storage given as a factory
// (file-storage.ts): disk storage runs it in test/runtime/files.test.ts, S3 in
// test/storage-s3/files-e2e.test.ts.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { type App, ApiError, apiKey, type FileStorage, transaction } from '@mfx/runtime';
import { type Part, multipart, patterned, SAMPLES, type StorageFactory, type StorageHarness } from './file-storage.js';
import type { ServerHandle, TestResponse } from './server.js';
import { eachBackend, useServer } from './suite.js';
import { Recorder } from './wait.js';

const KB = 1024;
const MB = 1024 * KB;
/** The small-limit server's maxUploadBytes. */
const SMALL_LIMIT = 64 * KB;
const FILE_KEY = /^\d{4}\/\d{2}\/[A-Za-z0-9_-]{22}$/;

/** The storage the servers get: the harness's, telling the suite when a write starts. */
function recording(storage: FileStorage, started: Recorder<string>): FileStorage {
  return {
    put: (key, body, meta) => {
      started.push(key);
      return storage.put(key, body, meta);
    },
    get: (key, range) => storage.get(key, range),
    delete: (key) => storage.delete(key),
    exists: (key) => storage.exists(key),
  };
}

/**
 * Defines `file fields and /files on <storage> storage on <backend>` for
 * every backend.
 *
 * @example
 * filesSuite(diskStorageFactory);
 */
export function filesSuite(factory: StorageFactory): void {
  eachBackend(`file fields and /files on ${factory.name} storage`, (backend) => {
    let harness: StorageHarness;
    const started = new Recorder<string>();
    before(async () => {
      harness = await factory.open();
    });
    after(async () => harness?.close());
    const files = () => ({ storage: recording(harness.storage, started) });

    const server = useServer(backend, {
      fixture: 'files',
      config: {
        get files() {
          return files();
        },
      },
      setup: (app: App) => {
        // Page writes run in a transaction that a late failure rolls back (x-fail-late).
        app.use('service', transaction(), { models: ['Page'] });
        app.use(
          'response',
          async (ctx, next) => {
            if (ctx.req.headers['x-fail-late']) throw new ApiError('CONFLICT', 'refused after the write, before the commit');
            await next();
          },
          { models: ['Page'] },
        );
      },
    });
    const small = useServer(backend, {
      fixture: 'files',
      config: {
        get files() {
          return { ...files(), maxUploadBytes: SMALL_LIMIT };
        },
      },
      setup: (app: App) => void app.use('auth', apiKey({ keys: { 'file-route-key-0123456789': { userId: 'u1' } } }), { ops: ['file'] }),
    });
    const bare = useServer(backend, { fixture: 'files' });

    const send = (target: ServerHandle, method: string, path: string, parts: readonly Part[], headers: Record<string, string> = {}) => {
      const { raw, contentType } = multipart(parts);
      return target.request(method, path, { raw, headers: { 'content-type': contentType, ...headers } });
    };
    const upload = async (data: Buffer | string, filename = 'f.bin', type = 'application/octet-stream') => {
      const res = await send(server, 'POST', '/files', [{ name: 'file', filename, type, data }]);
      assert.equal(res.status, 201, res.text);
      return res.body.data as { key: string; size: number; contentType: string; filename: string };
    };
    const download = async (key: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}/files/${key}`, { headers });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    /** Runs a refused write: nothing in the table, nothing new stored, no unfinished write left. */
    const refused = async (work: () => Promise<TestResponse>, table = 'profiles'): Promise<TestResponse> => {
      const [rows, keys] = [await count(table), await harness.keys()];
      const res = await work();
      assert.equal(await count(table), rows, 'a refused write wrote a row');
      assert.deepEqual(await harness.keys(), keys, 'a refused write left a stored file');
      assert.deepEqual(await harness.leftovers(), [], 'a refused write left an unfinished write');
      return res;
    };
    const profile = (extra: Part[] = []): Part[] => [{ name: 'name', value: 'Ada' }, ...extra];

    it('creates from a multipart body: form values typed like JSON, the file streamed to storage, the field holding its key', async () => {
      const res = await send(server, 'POST', '/profiles', [
        { name: 'name', value: 'Ada Lovelace' },
        { name: 'age', value: '36' },
        { name: 'active', value: 'true' },
        { name: 'tags', value: '["math","engines"]' },
        { name: 'avatar', filename: 'ada.png', type: 'image/png', data: SAMPLES.png },
      ]);
      assert.equal(res.status, 201, res.text);
      const data = res.body.data;
      assert.deepEqual([data.name, data.age, data.active, data.tags, data.resume], ['Ada Lovelace', 36, true, ['math', 'engines'], null]);
      assert.match(data.avatar, FILE_KEY);
      assert.ok((await harness.keys()).includes(data.avatar));
      const got = await download(data.avatar);
      assert.equal(got.status, 200);
      assert.ok(got.bytes.equals(SAMPLES.png), 'the download is byte-exact');
      assert.equal(got.headers.get('content-type'), 'image/png');
      assert.equal(got.headers.get('content-length'), String(SAMPLES.png.length));
      assert.equal(got.headers.get('content-disposition'), `inline; filename="ada.png"; filename*=UTF-8''ada.png`);
      assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
      assert.match(got.headers.get('etag')!, /^"[A-Za-z0-9_-]{22}-[0-9a-z]+"$/);
      const read = await server.request('GET', `/profiles/${data.id}`);
      assert.equal(read.body.data.avatar, data.avatar);
    });

    it('validates form values exactly like JSON: the same 422 details, and the uploaded file is not kept', async () => {
      const json = await server.request('POST', '/profiles', { body: { name: '', age: 'old', active: 'yes', tags: 'x' } });
      assert.equal(json.status, 422);
      const res = await refused(() =>
        send(server, 'POST', '/profiles', [
          { name: 'name', value: '' },
          { name: 'age', value: 'old' },
          { name: 'active', value: 'yes' },
          { name: 'tags', value: 'x' },
          { name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png },
        ]),
      );
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.error, json.body.error);
      assert.deepEqual(
        res.body.error.details.map((d: { field: string }) => d.field),
        ['name', 'age', 'active', 'tags'],
      );
    });

    it('reads an empty form value of a number, boolean or file field as null', async () => {
      const res = await send(server, 'POST', '/profiles', profile([{ name: 'age', value: '' }, { name: 'active', value: '' }, { name: 'avatar', value: '' }]));
      assert.equal(res.status, 201, res.text);
      assert.deepEqual([res.body.data.age, res.body.data.active, res.body.data.avatar], [null, null, null]);
    });

    it('reads a form value declared application/json as its JSON: null, a number and text exactly as in a JSON write', async () => {
      const folder = await server.request('POST', '/folders', { body: { name: 'JSON parts' } });
      assert.equal(folder.status, 201, folder.text);
      const json = (value: unknown): { value: string; type: string } => ({ value: JSON.stringify(value), type: 'application/json' });
      const created = await send(server, 'POST', '/pages', [
        { name: 'folderId', ...json(folder.body.data.id) },
        { name: 'slug', ...json(`json-${Date.now()}`) },
        { name: 'image', filename: 'p.png', type: 'image/png', data: SAMPLES.png },
      ]);
      assert.equal(created.status, 201, created.text);
      assert.match(created.body.data.image, FILE_KEY);
      // A text part cannot clear a nullable text field (its empty value is ''); a JSON part can.
      const cleared = await send(server, 'PATCH', `/pages/${created.body.data.id}`, [{ name: 'slug', ...json(null) }]);
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.data.slug, null);
      const typed = await send(server, 'POST', '/profiles', [{ name: 'name', ...json('Ada') }, { name: 'age', ...json(36) }, { name: 'tags', ...json(['math']) }, { name: 'active', value: 'true', type: 'application/json; charset=utf-8' }]);
      assert.equal(typed.status, 201, typed.text);
      assert.deepEqual([typed.body.data.name, typed.body.data.age, typed.body.data.tags, typed.body.data.active], ['Ada', 36, ['math'], true]);
    });

    it('answers a form value declared application/json that is not JSON 400 INVALID_JSON, storing nothing', async () => {
      const res = await refused(() =>
        send(server, 'POST', '/profiles', [{ name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png }, { name: 'name', value: 'Ada', type: 'application/json' }]),
      );
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.error, { code: 'INVALID_JSON', message: 'the form value "name" is declared as application/json and is not JSON' });
      const twice = await refused(() => send(server, 'POST', '/profiles', [{ name: 'name', value: '"Ada"', type: 'application/json' }, { name: 'name', value: 'Ada' }]));
      assert.equal(twice.status, 400);
      assert.deepEqual(twice.body.error, { code: 'MULTIPART_ERROR', message: 'the multipart body sends "name" more than once; send each field once' });
    });

    it('answers a file over its max_size 413 FILE_TOO_LARGE, storing nothing', async () => {
      const big = Buffer.concat([SAMPLES.png, Buffer.alloc(MB + 1 - SAMPLES.png.length, 9)]);
      const res = await refused(() => send(server, 'POST', '/profiles', profile([{ name: 'avatar', filename: 'big.png', type: 'image/png', data: big }])));
      assert.equal(res.status, 413);
      assert.deepEqual(res.body.error, { code: 'FILE_TOO_LARGE', message: `the file "avatar" is larger than its max_size of ${MB} bytes` });
      const exact = await send(server, 'POST', '/profiles', profile([{ name: 'avatar', filename: 'max.png', type: 'image/png', data: big.subarray(0, MB) }]));
      assert.equal(exact.status, 201, 'a file of exactly max_size is accepted');
    });

    it('answers 415 FILE_TYPE_NOT_ALLOWED for a declared type outside accept, and for content that is not what it claims', async () => {
      const cases: Array<[Part, string]> = [
        [{ name: 'avatar', filename: 'setup.png', type: 'image/png', data: SAMPLES.exe }, 'the file "avatar" ("setup.png") is declared as image/png but its content is application/x-msdownload; the field accepts image/*'],
        [{ name: 'avatar', filename: 'notes.txt', type: 'text/plain', data: SAMPLES.text }, 'the file "avatar" ("notes.txt") is declared as text/plain; the field accepts image/*'],
        [{ name: 'avatar', filename: 'fake.png', type: 'image/png', data: SAMPLES.text }, 'the file "avatar" ("fake.png") is declared as image/png but its content is not image/png; the field accepts image/*'],
        [{ name: 'resume', filename: 'cv.pdf', type: 'application/pdf', data: SAMPLES.zip }, 'the file "resume" ("cv.pdf") is declared as application/pdf but its content is application/zip; the field accepts application/pdf, text/plain'],
      ];
      for (const [part, message] of cases) {
        const res = await refused(() => send(server, 'POST', '/profiles', profile([part])));
        assert.equal(res.status, 415, res.text);
        assert.deepEqual(res.body.error, { code: 'FILE_TYPE_NOT_ALLOWED', message });
      }
    });

    it('takes any accepted type, recording the type the content shows; a field without accept takes anything', async () => {
      const res = await send(server, 'POST', '/profiles', [
        { name: 'name', value: 'types' },
        { name: 'avatar', filename: 'photo.png', type: 'image/png', data: SAMPLES.jpeg },
        { name: 'resume', filename: 'cv.txt', type: 'text/plain', data: SAMPLES.text },
        { name: 'attachment', filename: 'report.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', data: SAMPLES.zip },
      ]);
      assert.equal(res.status, 201, res.text);
      const { avatar, resume, attachment } = res.body.data;
      assert.equal((await download(avatar)).headers.get('content-type'), 'image/jpeg');
      assert.equal((await download(resume)).headers.get('content-type'), 'text/plain');
      const docx = await download(attachment);
      assert.equal(docx.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
      assert.match(docx.headers.get('content-disposition')!, /^attachment; /);
      for (const [sample, type] of [[SAMPLES.gif, 'image/gif'], [SAMPLES.webp, 'image/webp']] as const) {
        const ok = await send(server, 'POST', '/profiles', profile([{ name: 'avatar', filename: 'x', type, data: sample }]));
        assert.equal(ok.status, 201, ok.text);
      }
    });

    it('answers a malformed multipart body 400 MULTIPART_ERROR, storing nothing', async () => {
      const noBoundary = await refused(() => server.request('POST', '/profiles', { raw: 'name=x', headers: { 'content-type': 'multipart/form-data' } }));
      assert.equal(noBoundary.status, 400);
      assert.equal(noBoundary.body.error.code, 'MULTIPART_ERROR');
      assert.match(noBoundary.body.error.message, /^the multipart body cannot be read: /);
      const whole = multipart(profile([{ name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png }]));
      const cut = await refused(() =>
        server.request('POST', '/profiles', { raw: whole.raw.subarray(0, whole.raw.length - 60), headers: { 'content-type': whole.contentType } }),
      );
      assert.equal(cut.status, 400);
      assert.deepEqual(cut.body.error, { code: 'MULTIPART_ERROR', message: 'the multipart body is malformed: Unexpected end of form' });
      const twice = await refused(() =>
        send(server, 'POST', '/profiles', profile([{ name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png }, { name: 'avatar', filename: 'b.png', type: 'image/png', data: SAMPLES.png }])),
      );
      assert.equal(twice.status, 400);
      assert.deepEqual(twice.body.error, { code: 'MULTIPART_ERROR', message: 'the multipart body sends "avatar" more than once; send each field once' });
    });

    it('uploads with POST /files (201 key, size, type, name) and takes the key in a JSON write: the two-step upload', async () => {
      const stored = await upload(SAMPLES.pdf, 'cv.pdf', 'application/pdf');
      assert.match(stored.key, FILE_KEY);
      assert.deepEqual({ ...stored, key: 'k' }, { key: 'k', size: SAMPLES.pdf.length, contentType: 'application/pdf', filename: 'cv.pdf' });
      const res = await server.request('POST', '/profiles', { body: { name: 'two steps', resume: stored.key } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.resume, stored.key);
      const form = await send(server, 'POST', '/profiles', profile([{ name: 'attachment', value: stored.key }]));
      assert.equal(form.status, 201, 'a key is taken as a form value too');
      assert.ok((await download(stored.key)).bytes.equals(SAMPLES.pdf));
    });

    it('answers a key that names no stored file 422 naming the field, traversal attempts included', async () => {
      for (const key of ['2026/11/AAAAAAAAAAAAAAAAAAAAAA', '../../etc/passwd', '/etc/passwd', '2026/11/../../../etc/passwd', '.tmp/x']) {
        const res = await refused(() => server.request('POST', '/profiles', { body: { name: 'x', avatar: key } }));
        assert.equal(res.status, 422, key);
        assert.deepEqual(res.body.error.details, [{ field: 'avatar', message: 'names no stored file: send the file itself (multipart), or a key POST /files returned' }]);
      }
    });

    it('serves byte ranges: 206 with Content-Range, suffix and open ranges, 416 past the end', async () => {
      const bytes = patterned(10_000, 1);
      const { key } = await upload(bytes);
      const cases: Array<[string, number, number]> = [
        ['bytes=0-99', 0, 99],
        ['bytes=9990-', 9990, 9999],
        ['bytes=-10', 9990, 9999],
        ['bytes=5000-20000', 5000, 9999],
      ];
      for (const [range, start, end] of cases) {
        const got = await download(key, { range });
        assert.equal(got.status, 206, range);
        assert.equal(got.headers.get('content-range'), `bytes ${start}-${end}/10000`);
        assert.equal(got.headers.get('content-length'), String(end - start + 1));
        assert.ok(got.bytes.equals(bytes.subarray(start, end + 1)), range);
      }
      const past = await server.request('GET', `/files/${key}`, { headers: { range: 'bytes=10000-' } });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), 'bytes */10000');
      assert.deepEqual(past.body.error, { code: 'RANGE_NOT_SATISFIABLE', message: "the range bytes=10000- is outside the file's 10000 bytes" });
      const several = await download(key, { range: 'bytes=0-1,5-6' });
      assert.equal(several.status, 200, 'several ranges answer the whole file');
      assert.ok(several.bytes.equals(bytes));
      const etag = several.headers.get('etag')!;
      assert.equal((await download(key, { range: 'bytes=0-0', 'if-range': '"other"' })).status, 200, 'a stale If-Range answers the whole file');
      assert.equal((await download(key, { range: 'bytes=0-0', 'if-range': etag })).status, 206);
      const cached = await download(key, { 'if-none-match': etag });
      assert.equal(cached.status, 304);
      assert.equal(cached.bytes.length, 0);
      const head = await fetch(`${server.url}/files/${key}`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), '10000');
      assert.equal((await head.arrayBuffer()).byteLength, 0);
      const encoded = await download(encodeURIComponent(key));
      assert.ok(encoded.bytes.equals(bytes), 'a key with its slashes percent-encoded names the same file');
    });

    it('answers unknown keys and traversal attempts 404 without reaching storage', async () => {
      const probes = [
        '2026/11/AAAAAAAAAAAAAAAAAAAAAA',
        '..%2F..%2Fetc%2Fpasswd',
        '%2e%2e/%2e%2e/etc/passwd',
        '2026/11/..%2F..%2F..%2Fetc%2Fpasswd',
        '.tmp',
        '2026/11/AAAAAAAAAAAAAAAAAAAAAA.meta.json',
        '%2Fetc%2Fpasswd',
      ];
      for (const probe of probes) {
        const res = await rawRequest(server.url, 'GET', `/files/${probe}`);
        assert.equal(res.status, 404, probe);
        assert.equal(JSON.parse(res.body).error.code, 'NOT_FOUND', probe);
        assert.equal((await rawRequest(server.url, 'DELETE', `/files/${probe}`)).status, 404, probe);
      }
      const dotted = await rawRequest(server.url, 'GET', '/files/2026/11/../../../../etc/passwd');
      assert.equal(dotted.status, 404);
    });

    it('quotes the file name safely in Content-Disposition, and never shows active content inline', async () => {
      const { key } = await upload('<script>alert(1)</script>', 'say "hi" résumé%.html', 'text/html');
      const got = await download(key);
      assert.equal(got.headers.get('content-type'), 'text/html');
      assert.equal(got.headers.get('content-disposition'), `attachment; filename="say _hi_ r_sum__.html"; filename*=UTF-8''say%20%22hi%22%20r%C3%A9sum%C3%A9%25.html`);
      assert.equal(got.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    });

    it('never takes a key or a path from the file name: directories in it are dropped', async () => {
      for (const filename of ['../../etc/evil.sh', '..\\..\\boot.ini', '/abs/olute.txt']) {
        const stored = await upload('x', filename);
        assert.match(stored.key, FILE_KEY);
        assert.ok(!stored.filename.includes('/') && !stored.filename.includes('\\') && !stored.filename.startsWith('.'), stored.filename);
      }
      assert.deepEqual(await harness.leftovers(), []);
    });

    it('deletes with DELETE /files/<key>: 204, then 404', async () => {
      const { key } = await upload('bye');
      assert.equal((await server.request('DELETE', `/files/${key}`)).status, 204);
      assert.equal((await server.request('GET', `/files/${key}`)).status, 404);
      const again = await server.request('DELETE', `/files/${key}`);
      assert.equal(again.status, 404);
      assert.deepEqual(again.body.error, { code: 'NOT_FOUND', message: `no stored file has the key "${key}"` });
      assert.ok(!(await harness.keys()).includes(key));
    });

    it('answers POST /files without a file part 422, and a JSON body 400', async () => {
      const none = await refused(() => send(server, 'POST', '/files', [{ name: 'other', value: 'x' }]));
      assert.equal(none.status, 422);
      assert.deepEqual(none.body.error.details, [{ field: 'file', message: 'is required: send the file as a multipart part named "file"' }]);
      const json = await server.request('POST', '/files', { body: { file: 'x' } });
      assert.equal(json.status, 400);
      assert.equal(json.body.error.code, 'MULTIPART_ERROR');
    });

    it('removes the old file when a PATCH replaces or clears the field, and keeps it with auto_delete:false', async () => {
      const created = await send(server, 'POST', '/profiles', [
        { name: 'name', value: 'replace me' },
        { name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png },
        { name: 'contract', filename: 'c.pdf', type: 'application/pdf', data: SAMPLES.pdf },
        { name: 'attachment', filename: 'x.txt', type: 'text/plain', data: 'x' },
      ]);
      assert.equal(created.status, 201, created.text);
      const { id, avatar, contract, attachment } = created.body.data;
      const replaced = await send(server, 'PATCH', `/profiles/${id}`, [
        { name: 'avatar', filename: 'b.png', type: 'image/png', data: SAMPLES.jpeg },
        { name: 'contract', filename: 'd.pdf', type: 'application/pdf', data: SAMPLES.pdf },
      ]);
      assert.equal(replaced.status, 200, replaced.text);
      const keys = await harness.keys();
      assert.ok(!keys.includes(avatar), 'the replaced avatar is removed');
      assert.ok(keys.includes(replaced.body.data.avatar));
      assert.ok(keys.includes(contract), 'auto_delete:false keeps the replaced contract');
      const cleared = await server.request('PATCH', `/profiles/${id}`, { body: { attachment: null, name: 'cleared' } });
      assert.equal(cleared.status, 200);
      assert.ok(!(await harness.keys()).includes(attachment), 'the cleared attachment is removed');
      const untouched = await server.request('PATCH', `/profiles/${id}`, { body: { name: 'renamed' } });
      assert.equal(untouched.status, 200);
      assert.ok((await harness.keys()).includes(replaced.body.data.avatar), 'a PATCH that leaves the field keeps its file');
    });

    it('drops, unread and unstored, a file part of a field the write may not set (immutable on update)', async () => {
      const created = await send(server, 'POST', '/profiles', profile([{ name: 'badge', filename: 'b.png', type: 'image/png', data: SAMPLES.png }]));
      assert.equal(created.status, 201, created.text);
      const res = await refused(() => send(server, 'PATCH', `/profiles/${created.body.data.id}`, [{ name: 'badge', filename: 'c.png', type: 'image/png', data: SAMPLES.jpeg }]));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.badge, created.body.data.badge);
    });

    it('removes every file of a hard-deleted row (not auto_delete:false ones), and none of a soft-deleted one', async () => {
      const created = await send(server, 'POST', '/profiles', [
        { name: 'name', value: 'delete me' },
        { name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png },
        { name: 'contract', filename: 'c.pdf', type: 'application/pdf', data: SAMPLES.pdf },
      ]);
      const { id, avatar, contract } = created.body.data;
      assert.equal((await server.request('DELETE', `/profiles/${id}`)).status, 204);
      const keys = await harness.keys();
      assert.ok(!keys.includes(avatar));
      assert.ok(keys.includes(contract));
      const doc = await send(server, 'POST', '/documents', [
        { name: 'title', value: 'kept' },
        { name: 'scan', filename: 's.pdf', type: 'application/pdf', data: SAMPLES.pdf },
      ]);
      assert.equal(doc.status, 201, doc.text);
      assert.equal((await server.request('DELETE', `/documents/${doc.body.data.id}`)).status, 204);
      assert.ok((await harness.keys()).includes(doc.body.data.scan), 'a soft delete keeps the file');
    });

    it('removes the files of rows a delete cascades to', async () => {
      const folder = await server.request('POST', '/folders', { body: { name: 'f' } });
      const page = await send(server, 'POST', '/pages', [
        { name: 'folderId', value: folder.body.data.id },
        { name: 'image', filename: 'p.png', type: 'image/png', data: SAMPLES.png },
      ]);
      assert.equal(page.status, 201, page.text);
      assert.equal((await server.request('DELETE', `/folders/${folder.body.data.id}`)).status, 204);
      assert.ok(!(await harness.keys()).includes(page.body.data.image));
    });

    it('removes the file a failed or rolled-back write stored, and keeps the old one', async () => {
      const folder = await server.request('POST', '/folders', { body: { name: 'rollback' } });
      const first = await send(server, 'POST', '/pages', [
        { name: 'folderId', value: folder.body.data.id },
        { name: 'slug', value: 'taken' },
        { name: 'image', filename: 'p.png', type: 'image/png', data: SAMPLES.png },
      ]);
      assert.equal(first.status, 201, first.text);
      const duplicate = await refused(
        () =>
          send(server, 'POST', '/pages', [
            { name: 'folderId', value: folder.body.data.id },
            { name: 'slug', value: 'taken' },
            { name: 'image', filename: 'p.png', type: 'image/png', data: SAMPLES.png },
          ]),
        'pages',
      );
      assert.equal(duplicate.status, 409);
      const late = await refused(
        () => send(server, 'POST', '/pages', [{ name: 'folderId', value: folder.body.data.id }, { name: 'image', filename: 'p.png', type: 'image/png', data: SAMPLES.png }], { 'x-fail-late': '1' }),
        'pages',
      );
      assert.equal(late.status, 409);
      assert.deepEqual(late.body.error, { code: 'CONFLICT', message: 'refused after the write, before the commit' });
      const before = await harness.keys();
      const replace = await send(server, 'PATCH', `/pages/${first.body.data.id}`, [{ name: 'image', filename: 'q.png', type: 'image/png', data: SAMPLES.jpeg }], { 'x-fail-late': '1' });
      assert.equal(replace.status, 409);
      assert.deepEqual(await harness.keys(), before, 'the rolled-back replacement is removed and the old file kept');
      assert.equal((await server.request('GET', `/pages/${first.body.data.id}`)).body.data.image, first.body.data.image);
    });

    it('stores nothing and leaves no unfinished write when the client aborts mid-upload', async () => {
      const keys = await harness.keys();
      const seen = server.logs.filter((line) => line.message === 'request').length;
      const { raw, contentType } = multipart([{ name: 'file', filename: 'big.bin', data: patterned(4 * MB) }]);
      const url = new URL(`${server.url}/files`);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': contentType, 'content-length': raw.length } });
      req.on('error', () => {});
      const writing = started.count(started.seen.length + 1);
      req.write(raw.subarray(0, 2 * MB));
      await writing;
      req.destroy();
      // The request's access line is written once its work (the cleanup included) has ended.
      await server.logLine((line) => line.message === 'request' && line.fields.path === '/api/files' && server.logs.filter((l) => l.message === 'request').indexOf(line) >= seen);
      assert.deepEqual(await harness.keys(), keys);
      assert.deepEqual(await harness.leftovers(), []);
    });

    it('takes concurrent uploads, each stored whole under its own key', async () => {
      const bodies = Array.from({ length: 8 }, (_, i) => patterned(300 * KB + i, i));
      const stored = await Promise.all(bodies.map((body, i) => upload(body, `part-${i}.bin`)));
      assert.equal(new Set(stored.map((s) => s.key)).size, bodies.length);
      for (const [i, { key, size }] of stored.entries()) {
        assert.equal(size, bodies[i].length);
        assert.ok((await download(key)).bytes.equals(bodies[i]), `upload ${i} is byte-exact`);
      }
      assert.deepEqual(await harness.leftovers(), []);
    });

    it('documents multipart bodies beside JSON for models with file fields, and the /files routes', async () => {
      const doc = (await server.request('GET', '/openapi.json')).body;
      const create = doc.paths['/profiles'].post.requestBody.content;
      assert.deepEqual(Object.keys(create), ['application/json', 'multipart/form-data']);
      assert.deepEqual(create['multipart/form-data'].schema, { $ref: '#/components/schemas/ProfileCreateForm' });
      const form = doc.components.schemas.ProfileCreateForm;
      assert.equal(form.properties.avatar.contentMediaType, 'application/octet-stream');
      assert.equal(form.properties.age.type.includes('integer'), true);
      assert.ok(doc.paths['/profiles/{id}'].patch.requestBody.content['multipart/form-data']);
      assert.equal(doc.paths['/folders'].post.requestBody.content['multipart/form-data'], undefined, 'no file fields, no multipart body');
      assert.deepEqual(Object.keys(doc.paths['/files'].post.responses).sort(), ['201', '400', '413', '422', '500', '501']);
      assert.deepEqual(Object.keys(doc.paths['/files/{key}'].get.responses).sort(), ['200', '206', '304', '404', '416', '500', '501']);
      assert.deepEqual(Object.keys(doc.paths['/files/{key}'].delete.responses).sort(), ['204', '404', '500', '501']);
      assert.ok(doc.paths['/files/{key}'].head);
    });

    it('counts the file routes in production validation until an auth hook covers the file operation', () => {
      assert.throws(
        () => server.app.validateProduction(),
        (e: Error) => e.message.includes(`files route POST /api/files has no access flag: scope an authenticator onto it, e.g. app.use('auth', bearer({...}), { ops: ['file'] })`),
      );
      assert.throws(
        () => small.app.validateProduction(),
        (e: Error) => !e.message.includes('files route'),
      );
    });

    it('runs Auth-step hooks scoped to the file operation on the file routes', async () => {
      const denied = await send(small, 'POST', '/files', [{ name: 'file', filename: 'a.txt', data: 'a' }]);
      assert.equal(denied.status, 401);
      const allowed = await send(small, 'POST', '/files', [{ name: 'file', filename: 'a.txt', data: 'a' }], { 'x-api-key': 'file-route-key-0123456789' });
      assert.equal(allowed.status, 201, allowed.text);
      assert.equal((await small.request('GET', `/files/${allowed.body.data.key}`)).status, 401);
      assert.equal((await small.request('GET', `/files/${allowed.body.data.key}`, { headers: { 'x-api-key': 'file-route-key-0123456789' } })).status, 200);
      const doc = (await small.request('GET', '/openapi.json')).body;
      assert.deepEqual(doc.paths['/files'].post.security, [{ apiKeyAuth: [] }]);
    });

    it('answers a multipart body over maxUploadBytes 413 BODY_TOO_LARGE and closes the connection, storing nothing', async () => {
      const parts = profile([{ name: 'attachment', filename: 'big.bin', data: patterned(SMALL_LIMIT + KB) }]);
      const declared = await refused(() => send(small, 'POST', '/profiles', parts));
      assert.equal(declared.status, 413);
      assert.deepEqual(declared.body.error, { code: 'BODY_TOO_LARGE', message: `request body is larger than ${SMALL_LIMIT} bytes` });
      assert.equal(declared.headers.get('connection'), 'close');
      // Chunked, without Content-Length: refused while it streams.
      const { raw, contentType } = multipart(parts);
      const chunked = await refused(() => rawRequest(small.url, 'POST', '/profiles', { 'content-type': contentType }, raw).then((r) => ({ status: r.status, body: JSON.parse(r.body) }) as TestResponse));
      assert.equal(chunked.status, 413);
      assert.equal(chunked.body.error.code, 'BODY_TOO_LARGE');
    });

    it('answers multipart writes and the file routes 501 NO_STORAGE without storage; JSON keys are then plain strings', async () => {
      const form = await send(bare, 'POST', '/profiles', profile([{ name: 'avatar', filename: 'a.png', type: 'image/png', data: SAMPLES.png }]));
      assert.equal(form.status, 501);
      assert.deepEqual(form.body.error, { code: 'NO_STORAGE', message: 'not implemented' });
      for (const [method, path] of [['POST', '/files'], ['GET', '/files/2026/11/AAAAAAAAAAAAAAAAAAAAAA'], ['DELETE', '/files/2026/11/AAAAAAAAAAAAAAAAAAAAAA']]) {
        const res = await bare.request(method, path, { unchecked: true });
        assert.equal(res.status, 501, `${method} ${path}`);
        assert.equal(res.body.error.code, 'NO_STORAGE');
      }
      const json = await bare.request('POST', '/profiles', { body: { name: 'no storage', avatar: 'any key' } });
      assert.equal(json.status, 201);
      assert.equal(json.body.data.avatar, 'any key');
      const doc = (await bare.request('GET', '/openapi.json')).body;
      assert.equal(doc.paths['/files'], undefined);
      assert.deepEqual(Object.keys(doc.paths['/profiles'].post.requestBody.content), ['application/json']);
    });
  });
}

/** A request sent as written (no URL normalisation of `..`, a body without Content-Length is chunked). */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: `${url.pathname}${path}`, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body) {
      // Several writes: chunked transfer, the size unknown to the server up front.
      for (let at = 0; at < body.length; at += 16 * KB) req.write(body.subarray(at, at + 16 * KB));
    }
    req.end();
  });
}
