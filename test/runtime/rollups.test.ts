// Rollups: a parent column follows count/sum/min/max/avg of its live children after every child
// create, update (re-parenting: both parents), delete, soft delete and cascade, in the child
// write's transaction under a lock of the parent row; without a transaction 500 ROLLUP_NO_TX;
// backfillRollups and `mfx rollups backfill` recompute existing data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backfillRollups, type BackfillProgress, ConfigError, createServer, openSqlite, RegistrationClosedError, type RollupDefinition, transaction } from '@mfx/runtime';
import { openDatabase } from '../../runtime/src/db/open.js';
import { declareRollups } from '../../fixtures/rollups/app.js';
import { sqliteFileBackend } from '../support/backends.js';
import { cliDatabase, root, runMfx } from '../support/cli.js';
import { fixtureManifestDir, loadFixture } from '../support/fixtures.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend, postgres, useServer } from '../support/suite.js';

/** The rollup columns of an order, as a read shows them. */
const ROLLED = ['lineCount', 'total', 'paidTotal', 'qtyTotal', 'minAmount', 'maxAmount', 'avgAmount', 'lastDue', 'paymentSum'] as const;
const EMPTY = { lineCount: 0, total: 0, paidTotal: 0, qtyTotal: 0, minAmount: null, maxAmount: null, avgAmount: null, lastDue: null, paymentSum: 0 };

eachBackend('rollups', (backend) => {
  const server = useServer(backend, {
    fixture: 'rollups',
    setup(app) {
      declareRollups(app);
      app.use('service', transaction(), { models: ['Customer', 'Order', 'Line', 'Product'] });
      // Payment updates run without a transaction: they are refused.
      app.use('service', transaction(), { models: ['Payment'], ops: ['create', 'delete'] });
    },
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.body.data as Record<string, any>;
  };
  const rolled = async (orderId: string) => {
    const res = await server.request('GET', `/orders/${orderId}`);
    assert.equal(res.status, 200, res.text);
    return Object.fromEntries(ROLLED.map((k) => [k, res.body.data[k]]));
  };
  const patch = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('PATCH', path, { body });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const remove = async (path: string) => assert.equal((await server.request('DELETE', path)).status, 204);

  it('an order without children holds 0 for count and sum and null for min, max and avg, also once its last child goes', async () => {
    const order = await create('/orders', { ref: 'empty' });
    assert.deepEqual(await rolled(order.id), EMPTY);
    const line = await create('/lines', { orderId: order.id, amount: 4, qty: 2, due: '2026-01-01T00:00:00.000Z' });
    const payment = await create('/payments', { orderId: order.id, amount: 3 });
    assert.deepEqual(await rolled(order.id), { ...EMPTY, lineCount: 1, total: 4, qtyTotal: 2, minAmount: 4, maxAmount: 4, avgAmount: 4, lastDue: '2026-01-01T00:00:00.000Z', paymentSum: 3 });
    await remove(`/lines/${line.id}`);
    await remove(`/payments/${payment.id}`);
    assert.deepEqual(await rolled(order.id), EMPTY);
  });

  it('follows every child create, update and (soft) delete: count, sum, sum where, min, max, avg, max of a timestamp', async () => {
    const order = await create('/orders', { ref: 'all-ops' });
    const a = await create('/lines', { orderId: order.id, amount: 1.5, qty: 1, due: '2026-03-01T00:00:00.000Z' });
    const b = await create('/lines', { orderId: order.id, amount: 2.5, qty: 2, state: 'paid', due: '2026-05-01T00:00:00.000Z' });
    await create('/lines', { orderId: order.id, amount: 5, qty: 3, state: 'paid' });
    assert.deepEqual(await rolled(order.id), {
      ...EMPTY,
      lineCount: 3,
      total: 9,
      paidTotal: 7.5,
      qtyTotal: 6,
      minAmount: 1.5,
      maxAmount: 5,
      avgAmount: 3,
      lastDue: '2026-05-01T00:00:00.000Z',
    });
    // An update that moves a line into the where-set, and one that changes the amount.
    await patch(`/lines/${a.id}`, { state: 'paid', amount: 0.5 });
    assert.deepEqual(await rolled(order.id), { ...EMPTY, lineCount: 3, total: 8, paidTotal: 8, qtyTotal: 6, minAmount: 0.5, maxAmount: 5, avgAmount: 8 / 3, lastDue: '2026-05-01T00:00:00.000Z' });
    // A soft delete: the row stays, and no longer counts.
    await remove(`/lines/${b.id}`);
    assert.deepEqual(await rolled(order.id), { ...EMPTY, lineCount: 2, total: 5.5, paidTotal: 5.5, qtyTotal: 4, minAmount: 0.5, maxAmount: 5, avgAmount: 2.75, lastDue: '2026-03-01T00:00:00.000Z' });
  });

  it('re-parenting a child recomputes the parent it left and the one it joined; clearing the key recomputes the old one', async () => {
    const from = await create('/orders', { ref: 'from' });
    const to = await create('/orders', { ref: 'to' });
    const line = await create('/lines', { orderId: from.id, amount: 7, qty: 1 });
    await create('/lines', { orderId: from.id, amount: 1, qty: 1 });
    await patch(`/lines/${line.id}`, { orderId: to.id });
    assert.deepEqual([(await rolled(from.id)).total, (await rolled(from.id)).lineCount], [1, 1]);
    assert.deepEqual([(await rolled(to.id)).total, (await rolled(to.id)).lineCount], [7, 1]);
    await patch(`/lines/${line.id}`, { orderId: null });
    assert.deepEqual(await rolled(to.id), EMPTY);
  });

  it('a client PATCH of the rollup column stands until the next child write recomputes it', async () => {
    const order = await create('/orders', { ref: 'patched' });
    await create('/lines', { orderId: order.id, amount: 2, qty: 1 });
    assert.equal((await patch(`/orders/${order.id}`, { total: 999, lineCount: 40 })).total, 999);
    await create('/lines', { orderId: order.id, amount: 3, qty: 1 });
    const after = await rolled(order.id);
    assert.deepEqual([after.total, after.lineCount], [5, 2]);
  });

  it('a customer counts its live orders: a soft-deleted order leaves the count', async () => {
    const customer = await create('/customers', { name: 'Ada' });
    const first = await create('/orders', { ref: 'c-1', customerId: customer.id });
    await create('/orders', { ref: 'c-2', customerId: customer.id });
    const count = async () => (await server.request('GET', `/customers/${customer.id}`)).body.data.orderCount;
    assert.equal(await count(), 2);
    await remove(`/orders/${first.id}`);
    assert.equal(await count(), 1);
  });

  it('rows a delete cascades to recompute their parents: a product takes its lines with it', async () => {
    const order = await create('/orders', { ref: 'cascade' });
    const product = await create('/products', { name: 'widget' });
    await create('/lines', { orderId: order.id, productId: product.id, amount: 10, qty: 1 });
    await create('/lines', { orderId: order.id, amount: 1, qty: 1 });
    assert.equal((await rolled(order.id)).total, 11);
    await remove(`/products/${product.id}`);
    const after = await rolled(order.id);
    assert.deepEqual([after.total, after.lineCount, after.maxAmount], [1, 1, 1]);
  });

  it('a child write without a transaction is 500 ROLLUP_NO_TX, logged, and writes nothing', async () => {
    const order = await create('/orders', { ref: 'no-tx' });
    const payment = await create('/payments', { orderId: order.id, amount: 4 });
    const res = await server.request('PATCH', `/payments/${payment.id}`, { body: { amount: 9 } });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: { code: 'ROLLUP_NO_TX', message: 'internal server error' } });
    const line = await server.logLine((l) => l.fields.requestId === res.headers.get('x-request-id') && l.fields.model === 'Payment');
    assert.equal(
      line.message,
      "an update of Payment ran without a transaction, which its rollups need; register transaction() for Payment (app.use('service', transaction(), { models: ['Payment'] })); nothing was written",
    );
    assert.equal((await server.request('GET', `/payments/${payment.id}`)).body.data.amount, 4, 'nothing was written');
    assert.equal((await rolled(order.id)).paymentSum, 4);
  });

  it('50 concurrent child writes against one parent lose no update', async () => {
    const order = await create('/orders', { ref: 'busy' });
    const lines = await Promise.all(Array.from({ length: 50 }, (_, i) => create('/lines', { orderId: order.id, amount: i + 1, qty: 1 })));
    assert.deepEqual([(await rolled(order.id)).lineCount, (await rolled(order.id)).total], [50, 1275]);
    // 25 deletes and 25 updates at once: the odd amounts go, the even ones double.
    const odd = lines.filter((l) => l.amount % 2 === 1);
    const even = lines.filter((l) => l.amount % 2 === 0);
    const statuses = await Promise.all([
      ...odd.map(async (l) => (await server.request('DELETE', `/lines/${l.id}`)).status),
      ...even.map(async (l) => (await server.request('PATCH', `/lines/${l.id}`, { body: { amount: l.amount * 2 } })).status),
    ]);
    assert.deepEqual(new Set(statuses), new Set([204, 200]));
    const after = await rolled(order.id);
    // 2 + 4 + ... + 50 = 650, doubled.
    assert.deepEqual([after.lineCount, after.total, after.minAmount, after.maxAmount], [25, 1300, 4, 100]);
  });

  it('backfillRollups recomputes every parent in batches, with progress', async () => {
    const order = await create('/orders', { ref: 'stale' });
    await create('/lines', { orderId: order.id, amount: 6, qty: 2, state: 'paid' });
    // Values written behind the rollups' back (by hand, or before they were declared).
    const db = server.app.db;
    const q = db.dialect.quote;
    await db.run(`UPDATE ${q('orders')} SET ${q('total')} = 0, ${q('lineCount')} = 0, ${q('paidTotal')} = 0, ${q('maxAmount')} = NULL`);
    await db.run(`UPDATE ${q('customers')} SET ${q('orderCount')} = 99`);
    const progress: BackfillProgress[] = [];
    const report = await backfillRollups(server.app, { batchSize: 2, onProgress: (p) => void progress.push(p) });
    assert.equal(report.complete, true);
    const orders = Number((await db.get(`SELECT COUNT(*) AS n FROM ${q('orders')}`))!.n);
    const customers = Number((await db.get(`SELECT COUNT(*) AS n FROM ${q('customers')}`))!.n);
    assert.deepEqual(
      report.models.map((m) => [m.model, m.rows, m.fields]),
      [
        ['Customer', customers, ['orderCount']],
        ['Order', orders, ['lineCount', 'total', 'paidTotal', 'qtyTotal', 'minAmount', 'maxAmount', 'avgAmount', 'lastDue', 'paymentSum']],
      ],
    );
    assert.deepEqual(progress.at(-1), { model: 'Order', done: orders, total: orders });
    assert.equal(progress.filter((p) => p.model === 'Order').length, Math.ceil(orders / 2));
    const after = await rolled(order.id);
    assert.deepEqual([after.total, after.lineCount, after.paidTotal, after.maxAmount], [6, 1, 6, 6]);
    const counts = await server.request('GET', '/customers?limit=100');
    for (const customer of counts.body.data) {
      const live = await server.request('GET', `/orders?filter=customerId:eq:${customer.id}`);
      assert.equal(customer.orderCount, live.body.meta.total);
    }
    // onProgress returning false stops after the batch.
    const stopped = await backfillRollups(server.app, { batchSize: 1, onProgress: () => false });
    assert.deepEqual([stopped.complete, stopped.models.map((m) => m.rows)], [false, [1]]);
  });
});

describe('rollup registration', () => {
  const build = async (...defs: RollupDefinition[]) => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('rollups'));
    app.setDB(openSqlite(':memory:', app.registry));
    for (const def of defs) app.rollup(def);
    return app;
  };
  const line = (def: Partial<RollupDefinition>): RollupDefinition => ({ parent: 'Order', field: 'total', child: 'Line', via: 'orderId', op: 'sum', of: 'amount', ...def }) as RollupDefinition;

  it('every mistake fails the build with a ConfigError naming the rollup', async () => {
    const models = 'Customer, Line, Order, Payment, Product';
    const cases: [RollupDefinition, string][] = [
      [line({ parent: 'Nope', field: 'x' }), `rollup Nope.x (sum of Line.amount): \`parent\` names no registered model (Nope); registered models: ${models}`],
      [line({ child: 'Nope' }), `rollup Order.total (sum of Nope.amount): \`child\` names no registered model (Nope); registered models: ${models}`],
      [line({ op: 'median' as never }), 'rollup Order.total (median of Line.amount): `op` must be one of count, sum, min, max, avg, got "median"'],
      [
        line({ field: 'nope' }),
        'rollup Order.nope (sum of Line.amount): `field` nope is not a field of Order; numeric fields: lineCount, total, paidTotal, qtyTotal, minAmount, maxAmount, avgAmount, paymentSum',
      ],
      [line({ field: 'created_at' }), 'rollup Order.created_at (sum of Line.amount): `field` created_at is not a field of Order; numeric fields: lineCount, total, paidTotal, qtyTotal, minAmount, maxAmount, avgAmount, paymentSum'],
      [line({ via: 'label' }), 'rollup Order.total (sum of Line.amount): `via`: Line.label is not a foreign key to Order; foreign keys of Line to Order: orderId'],
      [line({ via: 'productId' }), 'rollup Order.total (sum of Line.amount): `via`: Line.productId is not a foreign key to Order; foreign keys of Line to Order: orderId'],
      [line({ via: 'zzz' }), 'rollup Order.total (sum of Line.amount): `via`: zzz is not a field of Line; foreign keys of Line to Order: orderId'],
      [line({ parent: 'Customer', field: 'orderCount', op: 'count', of: undefined }), 'rollup Customer.orderCount (count of Line): `via`: Line.orderId is not a foreign key to Customer; Line has no foreign key to Customer'],
      [line({ of: undefined }), 'rollup Order.total (sum of Line): `of` is required for sum: name the Line field to aggregate'],
      [line({ op: 'avg', field: 'avgAmount', of: undefined }), 'rollup Order.avgAmount (avg of Line): `of` is required for avg: name the Line field to aggregate'],
      [line({ of: 'label' }), 'rollup Order.total (sum of Line.label): `of` Line.label is string, and sum needs a number, integer or bigint field'],
      [line({ op: 'avg', field: 'avgAmount', of: 'due' }), 'rollup Order.avgAmount (avg of Line.due): `of` Line.due is timestamp, and avg needs a number, integer or bigint field'],
      [line({ of: 'nope' }), 'rollup Order.total (sum of Line.nope): `of` nope is not a field of Line'],
      [line({ where: { nope: 'paid' } }), 'rollup Order.total (sum of Line.amount): `where` names nope, which is not a field of Line'],
      [line({ where: { state: ['paid'] } as never }), 'rollup Order.total (sum of Line.amount): `where` state must be a string, number, boolean or null'],
      [line({ op: 'avg', field: 'qtyTotal' }), 'rollup Order.qtyTotal (avg of Line.amount): Order.qtyTotal is integer; an average needs a number field'],
      [line({ field: 'qtyTotal' }), 'rollup Order.qtyTotal (sum of Line.amount): Order.qtyTotal is integer, but the sum of Line.amount is a number with decimals; use a number field'],
      [line({ op: 'max', field: 'lastDue', of: 'amount' }), 'rollup Order.lastDue (max of Line.amount): Order.lastDue is timestamp, but max of Line.amount gives number'],
      [line({ field: 'ref', op: 'count', of: undefined }), 'rollup Order.ref (count of Line): Order.ref is string; count needs a number, integer or bigint field'],
    ];
    for (const [def, message] of cases) {
      const app = await build(def);
      assert.throws(() => app.handler(), (error: Error) => error instanceof ConfigError && error.message === `mfx: ${message}`, message);
    }
    const twice = await build(line({}), line({ of: 'qty' }));
    assert.throws(() => twice.handler(), { message: 'mfx: rollup Order.total (sum of Line.qty): Order.total is already kept by rollup Order.total (sum of Line.amount); a column holds one rollup' });
  });

  it('after the build, registration is closed', async () => {
    const app = await build(line({}));
    app.handler();
    assert.throws(() => app.rollup(line({ field: 'paidTotal' })), RegistrationClosedError);
  });
});

eachBackend(
  'mfx rollups backfill',
  (backend) => {
    it('recomputes the rollups an --app module declares on a database by URL, with progress on stderr', async () => {
      const db = await cliDatabase(backend);
      try {
        const dir = await fixtureManifestDir('rollups');
        assert.equal((await runMfx(['migrate', '--manifest', dir, '--db', db.url])).code, 0);
        // Data written before the rollups were declared: the columns hold their defaults.
        const app = createServer({ logger: memoryLogger(), handleSignals: false });
        app.register(await loadFixture('rollups'));
        app.setDB(openDatabase(db.url, app.registry));
        await app.db.init(memoryLogger());
        app.handler();
        const order = await app.store('Order').insert(app.db, { ref: 'old' });
        for (const amount of [2, 3, 4]) await app.store('Line').insert(app.db, { orderId: order.id, amount, qty: 1, state: amount > 2 ? 'paid' : 'open' });
        await app.db.close();

        const appFile = `${root}/fixtures/rollups/app.ts`;
        const ran = await runMfx(['rollups', 'backfill', '--manifest', dir, '--db', db.url, '--app', appFile]);
        assert.equal(ran.code, 0, ran.stderr);
        assert.deepEqual(JSON.parse(ran.stdout), {
          models: [
            { model: 'Customer', rows: 0, fields: ['orderCount'] },
            { model: 'Order', rows: 1, fields: ['lineCount', 'total', 'paidTotal', 'qtyTotal', 'minAmount', 'maxAmount', 'avgAmount', 'lastDue', 'paymentSum'] },
          ],
          complete: true,
        });
        assert.equal(ran.stderr, 'recomputed 1/1 rows (Order)\nrecomputed 10 rollup columns on 1 row\n');
        const [row] = await db.query('SELECT "lineCount", total, "paidTotal", "avgAmount" FROM orders');
        assert.deepEqual([Number(row.lineCount), Number(row.total), Number(row.paidTotal), Number(row.avgAmount)], [3, 9, 7, 3]);

        const none = await runMfx(['rollups', 'backfill', '--manifest', dir, '--db', db.url]);
        assert.deepEqual([none.code, none.stderr], [1, 'mfx rollups: no rollup is declared; declare them with app.rollup({ parent, field, child, via, op }) in the --app module\n']);
        const bare = await runMfx(['rollups', '--manifest', dir]);
        assert.deepEqual([bare.code, bare.stderr], [2, 'mfx rollups: unknown subcommand "--manifest"; usage: mfx rollups backfill [--manifest DIR] [--db URL] [--app FILE.ts]\n']);
        const help = await runMfx(['rollups', 'backfill', '--help']);
        assert.equal(help.code, 0);
        assert.match(help.stdout, /^usage: mfx rollups backfill \[--manifest DIR\] \[--db URL\] \[--app FILE\.ts\]\n/);
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);
