// The codec of a model: one per model and dialect, decoding rows and projecting records
// under a response view (select, locale, caller).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type App, codecOf, createServer, FULL_VIEW, loadManifest, openSqlite, type ResponseView } from '@mfx/runtime';
import { fixtureManifestDir } from '../support/fixtures.js';

describe('codecOf', () => {
  let app: App;
  before(async () => {
    app = createServer({ port: 0, handleSignals: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    app.register(loadManifest(await fixtureManifestDir('blog')));
    app.setDB(openSqlite(':memory:', app.registry));
    app.handler();
  });

  const user = { id: 'u1', name: 'Ada', email: 'ada@example.com', password: 'secret', role: 'member', bio: null, loginCount: 3, companyId: null, created_at: 't', updated_at: 't' };
  const post = (extra: Record<string, unknown> = {}) => ({ id: 'p1', title: 'T', body: 'B', status: 'draft', views: 0, userId: 'u1', created_at: 't', updated_at: 't', ...extra });

  it('is built once per model and dialect', () => {
    const model = app.registry.get('Post')!;
    assert.equal(codecOf(model, 'sqlite'), codecOf(model, 'sqlite'));
    assert.notEqual(codecOf(model, 'sqlite'), codecOf(model, 'postgres'));
  });

  it('shows visible fields only, in declaration order', () => {
    const { project } = codecOf(app.registry.get('User')!, 'sqlite');
    const shown = project(user, FULL_VIEW);
    assert.deepEqual(Object.keys(shown), ['id', 'name', 'email', 'role', 'bio', 'companyId', 'created_at', 'updated_at']);
  });

  it('applies select to the top level and projects included records under the same view, at every depth', () => {
    const { project } = codecOf(app.registry.get('Post')!, 'sqlite');
    const view: ResponseView = { select: ['title'], locale: null, caller: null };
    const shown = project(post({ author: user, comments: [{ id: 'c1', body: 'hi', postId: 'p1', userId: 'u1', deleted_at: null, created_at: 't', updated_at: 't', user }] }), view) as any;
    assert.deepEqual(Object.keys(shown), ['title', 'author', 'comments']);
    assert.equal('password' in shown.author || 'loginCount' in shown.author, false);
    assert.equal(shown.author.email, 'ada@example.com', 'select does not reach included records');
    assert.equal('password' in shown.comments[0].user, false);
    assert.equal(shown.comments[0].body, 'hi');
  });

  it('leaves relations out when asked (the ETag names the stored record, not a view of it)', () => {
    const { project } = codecOf(app.registry.get('Post')!, 'sqlite');
    assert.equal('author' in project(post({ author: user }), FULL_VIEW, false), false);
    assert.equal(project(post({ author: null }), FULL_VIEW).author, null);
  });

  it('decodes rows into records by JSON name, every field included', () => {
    const { decode } = codecOf(app.registry.get('User')!, 'sqlite');
    const record = decode({ ...user, loginCount: 7 });
    assert.equal(record.password, 'secret');
    assert.equal(record.loginCount, 7);
  });

  it('decodes a row of column values in the order of model.columns (SQLite reads its own rows so) as it decodes the row keyed by column', () => {
    const sample: Record<string, unknown> = { boolean: 1, json_array: '["a",{"b":2}]', json_object: '{"a":[1]}', localized: '{"en":"Hi","de":"Hallo"}', integer: 4, number: 2.5 };
    for (const model of app.registry.all()) {
      const { decode, decodeValues } = codecOf(model, 'sqlite');
      const row = Object.fromEntries(model.columns.map((c, i) => [c.column, c.field && c.field.type in sample ? sample[c.field.type] : `${c.column}-${i}`]));
      assert.deepEqual(decodeValues(model.columns.map((c) => row[c.column])), decode(row), model.name);
    }
  });
});
