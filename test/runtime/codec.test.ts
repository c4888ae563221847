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
    const view: ResponseView = { select: ['title'], locale: 'de', caller: null };
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

  it("decodes a row of the model's own select list like decode, reusing the row only when it is shaped like the record", async () => {
    const post = app.registry.get('Post')!;
    const row = () => ({ id: 'p1', title: 'T', body: 'B', status: 'draft', views: 2, rating: null, keywords: '["a"]', metadata: '{"w":1}', publishedAt: null, slug: 's', userId: 'u1', created_at: 't', updated_at: 't', deleted_at: null });
    assert.deepEqual(Object.keys(row()), post.columns.map((c) => c.column), 'the row reads every stored column in order');
    const { decode, decodeOwnRow } = codecOf(post, 'sqlite');
    const own = row();
    const decoded = decodeOwnRow(own);
    assert.equal(decoded, own, 'columns are the fields: the row becomes the record');
    assert.deepEqual(decoded, decode(row()));
    assert.deepEqual(Object.keys(decoded), Object.keys(decode(row())));
    assert.deepEqual(decoded.keywords, ['a']);

    // A column named apart from its field (db:), and a blind-index companion: copied as decode does.
    const kitchen = createServer({ port: 0, handleSignals: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    kitchen.register(loadManifest(await fixtureManifestDir('kitchen-sink')));
    const product = kitchen.registry.get('Product')!;
    assert.notDeepEqual(product.columns.map((c) => c.column), product.fields.map((f) => f.name));
    const productRow = Object.fromEntries(product.columns.map((c) => [c.column, null]));
    const copied = codecOf(product, 'sqlite').decodeOwnRow(productRow);
    assert.notEqual(copied, productRow);
    assert.deepEqual(copied, codecOf(product, 'sqlite').decode(productRow));
  });
});
