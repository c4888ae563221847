// Computed fields: read-only virtual fields on every record response (create and update echoes,
// read, list rows, includes), resolved once per page (resolveMany) or per row with bounded
// concurrency (resolve); a failing resolver drops its field, logged; documented as readOnly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, ConfigError, type ComputedDefinition, createServer, openSqlite, RegistrationClosedError } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { eachBackend, useServer } from '../support/suite.js';

interface Calls {
  /** resolveMany calls of Line.shout: the labels it was given, in order. */
  shout: string[][];
  /** The most per-row resolvers of Product.slow pending at once. */
  slowMax: number;
  slowActive: number;
}

function computedFields(app: App, calls: Calls): void {
  app.computed({ model: 'Order', name: 'gross', schema: { type: 'number' }, resolve: (row) => Number(row.total) * 2 });
  app.computed({
    model: 'Line',
    name: 'shout',
    schema: { type: 'string' },
    resolveMany: (rows) => {
      calls.shout.push(rows.map((r) => String(r.label)));
      return rows.map((r) => String(r.label).toUpperCase());
    },
  });
  app.computed({
    model: 'Line',
    name: 'doubleCost',
    schema: { type: 'number' },
    resolve: async (row) => {
      if (row.label === 'boom') throw new Error('cannot price a boom');
      return Number(row.amount) * 2;
    },
  });
  app.computed({
    model: 'Product',
    name: 'slow',
    schema: { type: 'integer' },
    resolve: async (row) => {
      calls.slowActive++;
      calls.slowMax = Math.max(calls.slowMax, calls.slowActive);
      // Yields to the event loop: every resolver that may start has started before any ends.
      await new Promise((resolve) => setImmediate(resolve));
      calls.slowActive--;
      return String(row.name).length;
    },
  });
  app.computed({ model: 'Product', name: 'short', schema: { type: 'string' }, resolveMany: (rows) => rows.slice(1).map(() => 'x') });
}

eachBackend('computed fields', (backend) => {
  const calls: Calls = { shout: [], slowMax: 0, slowActive: 0 };
  const server = useServer(backend, { fixture: 'rollups', setup: (app) => computedFields(app, calls) });

  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('appear on the create and update echoes, read and list rows; a value the client sends is ignored', async () => {
    const order = await create('/orders', { ref: 'A-1', total: 10, gross: 999 });
    assert.equal(order.gross, 20, 'the create echo carries the computed value, not the client one');
    const updated = await server.request('PATCH', `/orders/${order.id}`, { body: { total: 7, gross: 1 } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.data.gross, 14);
    assert.equal(updated.body.data.total, 7);
    const read = await server.request('GET', `/orders/${order.id}`);
    assert.equal(read.body.data.gross, 14);
    const list = await server.request('GET', `/orders?filter=ref:eq:A-1`);
    assert.deepEqual(list.body.data.map((o: { gross: number }) => o.gross), [14]);
    assert.deepEqual(Object.keys(read.body.data).slice(-1), ['gross'], 'after the stored fields');
  });

  it('resolveMany is called once per page with the rows in order; included records get theirs', async () => {
    const order = await create('/orders', { ref: 'B-1' });
    for (const label of ['c', 'a', 'b']) await create('/lines', { orderId: order.id, label, amount: 2, qty: 1 });
    calls.shout.length = 0;
    const list = await server.request('GET', `/lines?filter=orderId:eq:${order.id}&sort=label`);
    assert.equal(list.status, 200);
    assert.deepEqual(calls.shout, [['a', 'b', 'c']]);
    assert.deepEqual(list.body.data.map((l: { shout: string; doubleCost: number }) => [l.shout, l.doubleCost]), [['A', 4], ['B', 4], ['C', 4]]);
    calls.shout.length = 0;
    const withLines = await server.request('GET', `/orders/${order.id}?include=lines`);
    assert.equal(withLines.status, 200);
    assert.deepEqual(calls.shout.map((labels) => [...labels].sort()), [['a', 'b', 'c']], 'one call for every included line');
    assert.deepEqual(withLines.body.data.lines.map((l: { shout: string }) => l.shout).sort(), ['A', 'B', 'C']);
    assert.equal(withLines.body.data.gross, 0);
    // Nested: the order of each line, and its computed field.
    const nested = await server.request('GET', `/lines?filter=orderId:eq:${order.id}&include=order&limit=1`);
    assert.equal(nested.body.data[0].order.gross, 0);
  });

  it('a resolver that throws drops that field on that row only, logged with model, id and field', async () => {
    const order = await create('/orders', { ref: 'C-1' });
    const good = await create('/lines', { orderId: order.id, label: 'fine', amount: 3, qty: 1 });
    const logged = server.logLine((line) => line.fields.field === 'doubleCost');
    const bad = await create('/lines', { orderId: order.id, label: 'boom', amount: 3, qty: 1 });
    assert.equal(bad.doubleCost, undefined, 'dropped on the create echo');
    assert.equal(bad.shout, 'BOOM', 'the other computed field stays');
    const line = await logged;
    assert.equal(line.level, 'error');
    assert.deepEqual([line.fields.model, line.fields.id, line.fields.field, line.fields.err], ['Line', bad.id, 'doubleCost', 'cannot price a boom']);
    const list = await server.request('GET', `/lines?filter=orderId:eq:${order.id}&sort=label`);
    assert.deepEqual(
      list.body.data.map((l: Record<string, unknown>) => [l.id, 'doubleCost' in l ? l.doubleCost : 'absent']),
      [
        [bad.id, 'absent'],
        [good.id, 6],
      ],
    );
  });

  it('a resolveMany answer of the wrong length drops the field for the response, logged', async () => {
    await create('/products', { name: 'p1' });
    await create('/products', { name: 'p2' });
    const list = await server.request('GET', '/products');
    assert.equal(list.status, 200);
    const logged = server.logLine((line) => line.fields.field === 'short' && line.fields.requestId === list.headers.get('x-request-id'));
    assert.ok(list.body.data.every((p: Record<string, unknown>) => !('short' in p)));
    const line = await logged;
    assert.equal(line.message, `resolveMany of a computed field returned ${list.body.data.length - 1} values for ${list.body.data.length} rows; the field is left out of this response`);
    assert.equal(line.fields.model, 'Product');
  });

  it('per-row resolvers run at most 8 at once', async () => {
    for (let i = 0; i < 20; i++) await create('/products', { name: `product-${i}` });
    calls.slowMax = 0;
    const list = await server.request('GET', '/products?limit=50');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.length >= 20);
    assert.equal(calls.slowMax, 8);
    assert.ok(list.body.data.every((p: { name: string; slow: number }) => p.slow === p.name.length));
  });

  it('select= names stored fields: computed fields are left out and cannot be selected', async () => {
    const order = await create('/orders', { ref: 'D-1', total: 1 });
    const selected = await server.request('GET', `/orders/${order.id}?select=ref`);
    assert.deepEqual(selected.body.data, { ref: 'D-1' });
    const refused = await server.request('GET', `/orders/${order.id}?select=gross`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'INVALID_QUERY');
  });

  it('are documented as readOnly properties of the record, not required', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const order = doc.components.schemas.Order;
    assert.deepEqual(order.properties.gross, { type: 'number', readOnly: true, description: 'computed by the server; absent under select= and when its resolver fails' });
    assert.ok(!order.required.includes('gross'));
    assert.equal(doc.components.schemas.OrderCreate.properties.gross, undefined);
    assert.equal(doc.components.schemas.Line.properties.shout.readOnly, true);
  });
});

describe('computed field registration', () => {
  const appWith = async (def: ComputedDefinition) => {
    const app = createServer({ handleSignals: false });
    app.register(await loadFixture('rollups'));
    app.setDB(openSqlite(':memory:', app.registry));
    app.computed(def);
    return app;
  };
  const resolve = () => 1;

  it('an unknown model or a name the model already uses fails the build, naming the computed field', async () => {
    const cases: [ComputedDefinition, string][] = [
      [{ model: 'Nope', name: 'x', schema: {}, resolve }, 'mfx: computed field Nope.x: no model named Nope; registered models: Customer, Line, Order, Payment, Product'],
      [{ model: 'Order', name: 'total', schema: {}, resolve }, 'mfx: computed field Order.total: Order already has a field named total; give the computed field another name'],
      [{ model: 'Order', name: 'lines', schema: {}, resolve }, 'mfx: computed field Order.lines: Order already has a relation named lines; give the computed field another name'],
      [{ model: 'Order', name: 'id', schema: {}, resolve }, 'mfx: computed field Order.id: Order already has a field named id; give the computed field another name'],
    ];
    for (const [def, message] of cases) {
      const app = await appWith(def);
      assert.throws(() => app.handler(), (error: Error) => error instanceof ConfigError && error.message === message, message);
    }
    const twice = await appWith({ model: 'Order', name: 'x', schema: {}, resolve });
    twice.computed({ model: 'Order', name: 'x', schema: {}, resolve });
    assert.throws(() => twice.handler(), { message: 'mfx: computed field Order.x is registered twice; a model\'s computed fields need distinct names' });
  });

  it('a malformed definition is refused at once; after the build, registration is closed', async () => {
    const app = await appWith({ model: 'Order', name: 'ok', schema: {}, resolve });
    assert.throws(() => app.computed({ model: 'Order', name: 'x', schema: {} }), { message: 'mfx: computed field Order.x: give exactly one of resolve(row, ctx) and resolveMany(rows, ctx)' });
    assert.throws(() => app.computed({ model: 'Order', name: 'x', schema: {}, resolve, resolveMany: () => [] }), { message: 'mfx: computed field Order.x: give exactly one of resolve(row, ctx) and resolveMany(rows, ctx)' });
    assert.throws(() => app.computed({ model: 'Order', name: 'x', schema: 'number' as never, resolve }), { message: "mfx: computed field Order.x: `schema` must be a JSON Schema object, e.g. { type: 'number' }" });
    assert.throws(() => app.computed({ model: 'Order', name: '1x', schema: {}, resolve }), { message: 'mfx: computed field Order.1x: `name` must be a JSON name (letters, digits and _, not starting with a digit)' });
    app.handler();
    assert.throws(() => app.computed({ model: 'Order', name: 'late', schema: {}, resolve }), RegistrationClosedError);
  });
});

eachBackend('computed fields on an optimistic_lock model', (backend) => {
  let calls = 0;
  const server = useServer(backend, {
    fixture: 'lifecycle',
    setup: (app) => void app.computed({ model: 'Note', name: 'calls', schema: { type: 'integer' }, resolve: () => ++calls }),
  });

  it('the ETag names the stored record, so If-Match holds however the computed value changes', async () => {
    const created = await server.request('POST', '/notes', { body: { title: 'locked' } });
    assert.equal(created.status, 201);
    const read = await server.request('GET', `/notes/${created.body.data.id}`);
    assert.notEqual(read.body.data.calls, created.body.data.calls, 'the computed value changed between the two responses');
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
    const patched = await server.request('PATCH', `/notes/${created.body.data.id}`, { body: { title: 'locked 2' }, headers: { 'If-Match': read.headers.get('etag')! } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.title, 'locked 2');
  });
});
