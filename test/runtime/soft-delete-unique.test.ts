// Issue 14, defect 9: on a soft-delete model a unique value binds live rows
// only (a partial unique index, `WHERE deleted_at IS NULL` / `is_deleted =
// false`), so a deleted record's value can be taken again; conflicts among
// live rows keep their 409 shape; the migration moves existing tables over
// (and refuses, with a drift warning, where live rows already collide).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import type { Adapter, App } from '@mfx/runtime';
import { type ColumnSpec, modelTable, searchColumns, type TableSpec } from '@mfx/runtime/sql';
import { type ServerHandle, type StartOptions, startServer } from '../support/server.js';
import { eachBackend, onlyOn, useServer } from '../support/suite.js';

const conflict = (column: string) => ({ code: 'CONFLICT', message: `a record with this ${column} already exists` });

/** A 409 with the shape clients fix a write by: table and column named, the database's detail beside them. */
function assertConflict(res: { status: number; body: any }, table: string, column: string): void {
  assert.equal(res.status, 409, JSON.stringify(res.body));
  const { details, ...error } = res.body.error;
  assert.deepEqual(error, conflict(column));
  assert.equal(details.table, table);
  assert.equal(details.column, column);
  assert.equal(typeof details.detail, 'string');
}

/**
 * The table as mfx declared it before issue 14: a soft-delete model's unique
 * value bound every row (a UNIQUE column, a full unique index). `notUnique`
 * leaves a column without any key (a field declared unique later); `extra`
 * adds a column the model does not declare.
 */
function beforeIssue14(spec: TableSpec, notUnique: readonly string[] = [], extra?: ColumnSpec): TableSpec {
  const single = spec.indexes.filter((i) => i.liveOnly && i.columns.length === 1).map((i) => i.columns[0] as string);
  return {
    ...spec,
    columns: [...spec.columns.map((c) => (single.includes(c.name) && !notUnique.includes(c.name) ? { ...c, unique: true } : c)), ...(extra ? [extra] : [])],
    indexes: spec.indexes.filter((i) => !(i.liveOnly && i.columns.length === 1)).map(({ liveOnly: _, ...index }) => index),
  };
}

/** Creates the fixture's tables the old way, with their search index and foreign keys, before the server migrates. */
async function createOldSchema(app: App, adapter: Adapter, notUnique: readonly string[] = [], extra?: ColumnSpec): Promise<void> {
  const { dialect } = adapter;
  const names = new Map(app.registry.all().map((m) => [m.name, m.table]));
  const specs = app.registry.all().map((m) => ({ model: m, spec: beforeIssue14(modelTable(m.manifest, names), notUnique, m.name === 'Customer' ? extra : undefined) }));
  for (const { model, spec } of specs) {
    await adapter.raw(dialect.createTable(spec));
    for (const index of spec.indexes) await adapter.raw(dialect.createIndex(spec.name, index));
    const search = searchColumns(model);
    if (search.length > 0) for (const statement of dialect.searchStatements(spec.name, search)) await adapter.raw(statement);
  }
  for (const { spec } of specs) {
    for (const column of spec.columns) if (column.references) for (const statement of dialect.addForeignKey(spec.name, column.name, column.references)) await adapter.raw(statement);
  }
}

/** Server options for the fixture whose tables were created the old way and filled by `fill` before it migrates. */
function onOldSchema(fill: (adapter: Adapter) => Promise<unknown>, notUnique: readonly string[] = [], extra?: ColumnSpec): StartOptions {
  let app: App;
  return {
    fixture: 'soft-unique',
    setup: (a) => void (app = a),
    async prepare(adapter) {
      await createOldSchema(app, adapter, notUnique, extra);
      await fill(adapter);
    },
  };
}

const now = new Date().toISOString();
const insertCustomer = (adapter: Adapter, id: string, email: string, name: string, code: string | null, deletedAt: string | null) =>
  adapter.raw('INSERT INTO customers (id, email, name, code, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [id, email, name, code, now, now, deletedAt]);

const driftWarnings = (server: ServerHandle) => server.logs.filter((l) => l.fields.migration === 'drift').map((l) => l.message);

eachBackend('unique among live rows on soft-delete models', (backend) => {
  const server = useServer(backend, { fixture: 'soft-unique' });

  const create = (path: string, body: Record<string, unknown>) => server.request('POST', path, { body });

  it('frees a deleted record\'s unique value (timestamp marker); live duplicates are still 409 with table and column', async () => {
    const first = await create('/customers', { email: 'ann@example.com', name: 'Ann', code: 'A1' });
    assert.equal(first.status, 201);
    assertConflict(await create('/customers', { email: 'ann@example.com', name: 'Ann again' }), 'customers', 'email');
    assert.equal((await server.request('DELETE', `/customers/${first.body.data.id}`)).status, 204);
    const second = await create('/customers', { email: 'ann@example.com', name: 'Ann', code: 'A1' });
    assert.equal(second.status, 201, second.text);
    assertConflict(await create('/customers', { email: 'ann@example.com', name: 'Ann three' }), 'customers', 'email');
    assertConflict(await create('/customers', { email: 'other@example.com', name: 'Other', code: 'A1' }), 'customers', 'code');
    // Several deleted records may share the value.
    assert.equal((await server.request('DELETE', `/customers/${second.body.data.id}`)).status, 204);
    assert.equal((await create('/customers', { email: 'ann@example.com', name: 'Ann' })).status, 201);
    const all = await server.request('GET', `/customers?filter=${encodeURIComponent('email:eq:ann@example.com')}&filter=deleted_at:not_null`);
    assert.equal(all.body.meta.total, 2);
    // NULLs never collide.
    assert.equal((await create('/customers', { email: 'n1@example.com', name: 'N' })).status, 201);
    assert.equal((await create('/customers', { email: 'n2@example.com', name: 'N' })).status, 201);
  });

  it('does the same for a flag marker and a unique_index', async () => {
    const account = await create('/accounts', { handle: 'ada', region: 'eu', number: 7 });
    assert.equal(account.status, 201);
    assertConflict(await create('/accounts', { handle: 'ada', region: 'us', number: 1 }), 'accounts', 'handle');
    const pair = await create('/accounts', { handle: 'bob', region: 'eu', number: 7 });
    assert.equal(pair.status, 409);
    assert.equal(pair.body.error.code, 'CONFLICT');
    assert.equal(pair.body.error.details.table, 'accounts');
    assert.equal((await server.request('DELETE', `/accounts/${account.body.data.id}`)).status, 204);
    assert.equal((await create('/accounts', { handle: 'ada', region: 'eu', number: 7 })).status, 201);
  });

  it('lets exactly one of 20 concurrent creates take a value a deleted record held', async () => {
    const old = await create('/customers', { email: 'race@example.com', name: 'Old' });
    assert.equal((await server.request('DELETE', `/customers/${old.body.data.id}`)).status, 204);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create('/customers', { email: 'race@example.com', name: `Racer ${i}` })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(19).fill(409)]);
    for (const answer of answers.filter((a) => a.status === 409)) assertConflict(answer, 'customers', 'email');
    const live = await server.request('GET', `/customers?filter=${encodeURIComponent('email:eq:race@example.com')}`);
    assert.equal(live.body.meta.total, 1);
  });

  it('documents that a soft delete frees unique values', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    assert.match(doc.paths['/customers/{id}'].delete.description, /its unique values become free again/);
  });
});

eachBackend('the migration moves existing tables to unique among live rows', (backend) => {
  const ids = { live: randomUUID(), gone: randomUUID(), order: randomUUID(), account: randomUUID() };
  const server = useServer(
    backend,
    onOldSchema(async (adapter) => {
      await insertCustomer(adapter, ids.live, 'live@example.com', 'Ann Live', 'L1', null);
      await insertCustomer(adapter, ids.gone, 'gone@example.com', 'Grace Gone', 'G1', now);
      await adapter.raw('INSERT INTO orders (id, "customerId", amount, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [ids.order, ids.gone, 5, now, now]);
      await adapter.raw('INSERT INTO accounts (id, handle, region, number, created_at, updated_at, is_deleted) VALUES (?, ?, ?, ?, ?, ?, ?)', [ids.account, 'old', 'eu', 1, now, now, true]);
    }),
  );

  it('drops the old constraint and creates the partial index, keeping every row', async () => {
    const warnings = driftWarnings(server);
    if (backend.name === 'postgres') {
      assert.deepEqual(warnings, []);
    } else {
      // SQLite cannot drop a column's UNIQUE: the table is rebuilt, and the operator is told.
      assert.deepEqual(warnings.sort(), ['accounts', 'customers'].map((t) => `${t} was rebuilt to move its unique keys to live rows (SQLite cannot drop a column's UNIQUE): its rows were copied, its declared indexes and search triggers recreated; indexes or triggers created on it by hand are gone`));
    }
    const taken = await server.request('POST', '/customers', { body: { email: 'gone@example.com', name: 'Grace Back', code: 'G1' } });
    assert.equal(taken.status, 201, taken.text);
    assertConflict(await server.request('POST', '/customers', { body: { email: 'live@example.com', name: 'Copy' } }), 'customers', 'email');
    assertConflict(await server.request('POST', '/customers', { body: { email: 'x@example.com', name: 'Copy', code: 'L1' } }), 'customers', 'code');
    assert.equal((await server.request('POST', '/accounts', { body: { handle: 'old', region: 'eu', number: 1 } })).status, 201);
  });

  it('keeps the rows, their references, the foreign key and the search index', async () => {
    const order = await server.request('GET', `/orders/${ids.order}`);
    assert.equal(order.status, 200);
    assert.equal(order.body.data.customerId, ids.gone);
    const orphan = await server.request('POST', '/orders', { body: { customerId: randomUUID(), amount: 1 } });
    assert.equal(orphan.status, 409);
    assert.equal(orphan.body.error.code, 'FOREIGN_KEY_VIOLATION');
    const found = await server.request('GET', '/customers?q=Live');
    assert.deepEqual(found.body.data.map((c: any) => c.id), [ids.live]);
    const deleted = await server.request('GET', `/customers?filter=deleted_at:not_null`);
    assert.deepEqual(deleted.body.data.map((c: any) => c.id), [ids.gone]);
  });

  it('finds nothing left to do the next time', async () => {
    const report = await server.app.migrate();
    assert.deepEqual(report.warnings, []);
    assert.deepEqual([report.createdTables, report.addedColumns], [[], []]);
  });
});

eachBackend('the migration refuses a unique index live rows already violate', (backend) => {
  const ids = { a: randomUUID(), b: randomUUID() };
  // `code` was not unique before: two live customers share a code.
  const server = useServer(
    backend,
    onOldSchema(
      async (adapter) => {
        await insertCustomer(adapter, ids.a, 'a@example.com', 'A', 'SAME', null);
        await insertCustomer(adapter, ids.b, 'b@example.com', 'B', 'SAME', null);
      },
      ['code'],
    ),
  );

  it('starts, warns naming the table, column and fix, and creates the index once the rows are fixed', async () => {
    assert.ok(
      driftWarnings(server).includes(
        'customers.code holds the same value on several live rows, so the unique index uq_customers_code (unique among rows that are not soft-deleted) was not created and the value is not unique yet; fix those rows and migrate again',
      ),
    );
    assert.equal((await server.request('POST', '/customers', { body: { email: 'c@example.com', name: 'C', code: 'SAME' } })).status, 201, 'not unique yet');
    // The old email constraint moved all the same.
    assert.equal((await server.request('DELETE', `/customers/${ids.a}`)).status, 204);
    assert.equal((await server.request('POST', '/customers', { body: { email: 'a@example.com', name: 'A again' } })).status, 201);
    const live = (await server.request('GET', `/customers?filter=code:eq:SAME`)).body.data;
    for (const customer of live.slice(1)) assert.equal((await server.request('DELETE', `/customers/${customer.id}`)).status, 204);
    const report = await server.app.migrate();
    assert.deepEqual(report.warnings, []);
    assertConflict(await server.request('POST', '/customers', { body: { email: 'd@example.com', name: 'D', code: 'SAME' } }), 'customers', 'code');
  });
});

eachBackend('SQLite rebuilds only a table that matches its model', (backend) => {
  const why = 'PostgreSQL drops the old UNIQUE constraint in place, whatever other columns the table has; only SQLite rebuilds the table';
  it('keeps the old constraint and says why, instead of dropping a column it does not know', onlyOn(backend, 'sqlite', why), async () => {
    const server = await startServer(
      backend,
      onOldSchema((adapter) => insertCustomer(adapter, randomUUID(), 'gone@example.com', 'Gone', null, now), [], { name: 'legacy', type: 'string', nullable: true }),
    );
    try {
      const warnings = driftWarnings(server);
      const because = 'customers.legacy exists in the database but the model does not declare it; it is kept (migration never drops columns)';
      for (const columns of ['email', 'code']) {
        assert.ok(
          warnings.includes(
            `customers: the unique key on ${columns} still binds soft-deleted rows: moving it to live rows means rebuilding the table (SQLite), which migration does only when the table matches the model, and ${because}`,
          ),
          warnings.join('\n'),
        );
      }
      assertConflict(await server.request('POST', '/customers', { body: { email: 'gone@example.com', name: 'Back' } }), 'customers', 'email');
    } finally {
      await server.close();
    }
  });
});
