// bodyLimit({ bytes }): the spec's body-size hook (Limits: "a body-size hook
// can lower it"), end to end on both backends with disk storage: it lowers
// the JSON and the multipart limit for the models and operations it is
// scoped to, never raises either, and a body over it is 413 BODY_TOO_LARGE
// with nothing written and nothing stored.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type App, bodyLimit } from '@mfx/runtime';
import { diskStorageFactory, multipart, type Part, patterned, type StorageHarness } from '../support/file-storage.js';
import type { TestResponse } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';
import { startServer } from '../support/server.js';

const KB = 1024;
/** The server's own JSON limit in this suite (bodyLimit setting). */
const SERVER_JSON = 16 * KB;
/** The server's own multipart limit (files.maxUploadBytes). */
const SERVER_UPLOAD = 256 * KB;
/** What the hook lowers Profile writes to. */
const PROFILE_LIMIT = 4 * KB;
/** What the hook lowers POST /files to. */
const FILE_ROUTE_LIMIT = 8 * KB;
/** Larger than the server's limits: a hook cannot raise them. */
const RAISED = 1024 * KB;

eachBackend('bodyLimit() hook', (backend) => {
  let harness: StorageHarness;
  before(async () => {
    harness = await diskStorageFactory.open();
  });
  after(async () => harness?.close());

  const server = useServer(backend, {
    fixture: 'files',
    config: {
      bodyLimit: SERVER_JSON,
      get files() {
        return { storage: harness.storage, maxUploadBytes: SERVER_UPLOAD };
      },
    },
    setup: (app: App) => {
      app.use('auth', bodyLimit({ bytes: PROFILE_LIMIT }), { models: ['Profile'], ops: ['create', 'update'] });
      // Two hooks on one request: the lower stands, whatever the order.
      app.use('deserialize', bodyLimit({ bytes: 3 * PROFILE_LIMIT }), { position: 'before', models: ['Profile'] });
      app.use('auth', bodyLimit({ bytes: RAISED }), { models: ['Page', 'Folder'] });
      app.use('auth', bodyLimit({ bytes: FILE_ROUTE_LIMIT }), { ops: ['file'] });
      app.use('auth', bodyLimit({ bytes: 2 * KB }), { ops: ['action'] });
      app.action({ method: 'POST', path: '/echo', public: true, handler: async (_ctx, input) => ({ size: JSON.stringify(await input.json()).length }) });
    },
  });

  const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const send = (method: string, path: string, parts: readonly Part[]) => {
    const { raw, contentType } = multipart(parts);
    return server.request(method, path, { raw, headers: { 'content-type': contentType } });
  };
  /** A refused request: no row added to `table`, nothing new in storage, no unfinished write. */
  const refused = async (table: string, work: () => Promise<TestResponse>, limit: number): Promise<TestResponse> => {
    const [rows, keys] = [await count(table), await harness.keys()];
    const res = await work();
    assert.equal(res.status, 413, res.text);
    assert.deepEqual(res.body, { error: { code: 'BODY_TOO_LARGE', message: `request body is larger than ${limit} bytes` } });
    assert.equal(res.headers.get('connection'), 'close');
    assert.equal(await count(table), rows, 'a refused write wrote a row');
    assert.deepEqual(await harness.keys(), keys, 'a refused write left a stored file');
    assert.deepEqual(await harness.leftovers(), [], 'a refused write left an unfinished write');
    return res;
  };
  const json = (size: number) => ({ name: 'Ada', tags: ['x'.repeat(size)] });

  it('lowers the JSON limit of the models and operations it is scoped to: over it 413, nothing written; under it the write succeeds', async () => {
    await refused('profiles', () => server.request('POST', '/profiles', { body: json(PROFILE_LIMIT) }), PROFILE_LIMIT);
    const ok = await server.request('POST', '/profiles', { body: json(PROFILE_LIMIT - 200) });
    assert.equal(ok.status, 201, ok.text);
    const id = ok.body.data.id;
    await refused('profiles', () => server.request('PATCH', `/profiles/${id}`, { body: json(PROFILE_LIMIT) }), PROFILE_LIMIT);
    assert.deepEqual((await server.request('GET', `/profiles/${id}`)).body.data.tags, ok.body.data.tags, 'the refused update changed nothing');
  });

  it('lowers the multipart limit the same way: over it 413 with nothing written and no file stored', async () => {
    const parts = (size: number): Part[] => [{ name: 'name', value: 'Ada' }, { name: 'attachment', filename: 'a.bin', data: patterned(size) }];
    await refused('profiles', () => send('POST', '/profiles', parts(PROFILE_LIMIT + KB)), PROFILE_LIMIT);
    const ok = await send('POST', '/profiles', parts(PROFILE_LIMIT - KB));
    assert.equal(ok.status, 201, ok.text);
    const keys = await harness.keys();
    assert.ok(keys.includes(ok.body.data.attachment));
    await refused('profiles', () => send('PATCH', `/profiles/${ok.body.data.id}`, parts(PROFILE_LIMIT + KB)), PROFILE_LIMIT);
    assert.equal((await server.request('GET', `/profiles/${ok.body.data.id}`)).body.data.attachment, ok.body.data.attachment);
  });

  it('never raises the server limits: a hook above them leaves the JSON and multipart limits as they were', async () => {
    const folder = (await server.request('POST', '/folders', { body: { name: 'f' } })).body.data;
    await refused('folders', () => server.request('POST', '/folders', { body: { name: 'y'.repeat(SERVER_JSON) } }), SERVER_JSON);
    const parts: Part[] = [{ name: 'folderId', value: folder.id }, { name: 'image', filename: 'i.bin', data: patterned(SERVER_UPLOAD) }];
    await refused('pages', () => send('POST', '/pages', parts), SERVER_UPLOAD);
    // Under the server's limits, above the Profile hook's: the hook of another model does not reach here.
    const page = await send('POST', '/pages', [{ name: 'folderId', value: folder.id }, { name: 'image', filename: 'i.bin', data: patterned(PROFILE_LIMIT * 4) }]);
    assert.equal(page.status, 201, page.text);
  });

  it('scoped to the file routes, lowers the POST /files limit; other routes keep theirs', async () => {
    await refused('profiles', () => send('POST', '/files', [{ name: 'file', filename: 'big.bin', data: patterned(FILE_ROUTE_LIMIT + KB) }]), FILE_ROUTE_LIMIT);
    const ok = await send('POST', '/files', [{ name: 'file', filename: 'small.bin', data: patterned(FILE_ROUTE_LIMIT - KB) }]);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.size, FILE_ROUTE_LIMIT - KB);
  });

  it('scoped to actions, lowers the limit input.json() reads under', async () => {
    const small = await server.request('POST', '/echo', { body: { a: 'x'.repeat(KB) } });
    assert.equal(small.status, 200, small.text);
    const big = await server.request('POST', '/echo', { body: { a: 'x'.repeat(2 * KB) } });
    assert.equal(big.status, 413);
    assert.deepEqual(big.body, { error: { code: 'BODY_TOO_LARGE', message: `request body is larger than ${2 * KB} bytes` } });
  });
});

it('bodyLimit(): bytes must be a positive whole number; it must run before the body is read', async () => {
  for (const bytes of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
    assert.throws(() => bodyLimit({ bytes }), { message: `mfx: bodyLimit(): bytes must be a positive whole number of bytes, got ${String(bytes)}` });
  }
  const boot = (register: (app: App) => void) => startServer(sqlite, { fixture: 'files', setup: register });
  await assert.rejects(boot((app) => app.use('validate', bodyLimit({ bytes: 10 }))), {
    message: "mfx: bodyLimit() must run before the body is read: register it at the auth step, or at the deserialize step with position 'before', not at validate (before)",
  });
  await assert.rejects(boot((app) => app.use('deserialize', bodyLimit({ bytes: 10 }), { position: 'after' })), {
    message: "mfx: bodyLimit() must run before the body is read: register it at the auth step, or at the deserialize step with position 'before', not at deserialize (after)",
  });
  await assert.rejects(boot((app) => app.use('deserialize', bodyLimit({ bytes: 10 }), { ops: ['create', 'file'] })), {
    message: "mfx: bodyLimit() scoped to the file routes (ops: ['file']) belongs at the auth step: those routes run Auth-step hooks only",
  });
});

