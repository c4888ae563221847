// PostgreSQL-only behaviour: pools and routing, prepared statements behind a
// pooler, timeouts and cancellation, and faults under the running server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type Adapter, createServer, openPostgres, type PostgresOptions, type Registry } from '@mfx/runtime';
import { type Backend, freshSchema, PG_URL } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, startServer, type TestServer } from '../support/server.js';
import { postgres } from '../support/suite.js';
import { gate, until } from '../support/wait.js';

/** Turns a hang (a request never answered, a state never reached) into a failure. */
const HANG = { timeout: 60_000 };

/** What the last server opened on a `pgBackend`: its adapter and schema. */
interface Opened {
  adapter: Adapter;
  schema: string;
}

/** A PostgreSQL backend whose adapter is opened with these options; `opened` tells what it opened. */
function pgBackend(options: Omit<PostgresOptions, 'writeUrl'> & { rewriteUrl?: (url: string) => string } = {}): Backend & { opened: Opened } {
  const backend = {
    ...postgres,
    opened: null as unknown as Opened,
    async open(registry: Registry) {
      const { url, schema, drop } = await freshSchema();
      const writeUrl = options.rewriteUrl ? options.rewriteUrl(url) : url;
      const adapter = openPostgres({ ...options, writeUrl }, registry);
      backend.opened = { adapter, schema };
      return { adapter, drop, url };
    },
  };
  return backend;
}

/** An application name no other test uses, to find this server's backends in pg_stat_activity. */
const uniqueName = () => `mfx-test-${randomBytes(4).toString('hex')}`;

async function admin<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function blogRegistry(): Promise<Registry> {
  const app = createServer({ handleSignals: false, logger: memoryLogger() });
  app.register(await loadFixture('blog'));
  return app.registry;
}

/** Resolves once the server shows backend `pid` running a statement that contains `text`. */
const running = (pid: number, text: string) =>
  until(async () => (await admin(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND position($2 in query) > 0`, [pid, text])).length > 0);

describe('PostgreSQL pools', { skip: postgres.skip }, () => {
  it('sends reads outside a transaction to the read pool and everything inside one to the write connection', async () => {
    const registry = await blogRegistry();
    const { url, drop } = await freshSchema();
    const adapter = openPostgres({ writeUrl: url, poolConfig: { application_name: 'routing' } }, registry);
    try {
      const appName = `SELECT current_setting('application_name') AS name`;
      assert.equal((await adapter.get(appName))?.name, 'routing:read');
      assert.equal((await adapter.raw(appName))[0]?.name, 'routing:read');
      const inside = await adapter.transaction(async (tx) => [(await tx.get(appName))?.name, (await tx.raw(appName))[0]?.name]);
      assert.deepEqual(inside, ['routing:write', 'routing:write']);
      // A locking read must see the primary.
      assert.equal((await adapter.get(`${appName} FOR UPDATE`))?.name, 'routing:write');
    } finally {
      await adapter.close();
      await drop();
    }
  });

  it('opens the read pool on the read URL when one is given', async () => {
    const registry = await blogRegistry();
    const primary = await freshSchema();
    const replica = await freshSchema();
    const adapter = openPostgres({ writeUrl: primary.url, readUrl: replica.url }, registry);
    try {
      const schema = `SELECT current_schema() AS schema`;
      assert.equal((await adapter.get(schema))?.schema, replica.schema);
      assert.equal(await adapter.transaction(async (tx) => (await tx.get(schema))?.schema), primary.schema);
    } finally {
      await adapter.close();
      await primary.drop();
      await replica.drop();
    }
  });

  it('sends reads that must see the primary to the write pool when reads have a replica, and only then', async () => {
    const registry = await blogRegistry();
    const primary = await freshSchema();
    const replica = await freshSchema();
    const routed = openPostgres({ writeUrl: primary.url, readUrl: replica.url }, registry);
    const alone = openPostgres({ writeUrl: primary.url, poolConfig: { application_name: 'alone' } }, registry);
    // A request's signal, as RequestCancel carries it once the request must read the primary.
    const pinned = { aborted: false, reason: undefined, readPrimary: true, addEventListener() {}, removeEventListener() {} };
    try {
      const schema = `SELECT current_schema() AS schema`;
      assert.equal((await routed.get(schema))?.schema, replica.schema);
      assert.equal((await routed.get(schema, [], { readPrimary: true }))?.schema, primary.schema);
      assert.equal((await routed.raw(schema, [], { readPrimary: true }))[0]?.schema, primary.schema);
      assert.equal((await routed.all(schema, [], { signal: pinned }))[0]?.schema, primary.schema);
      assert.equal((await routed.get(schema, [], { signal: { ...pinned, readPrimary: false } }))?.schema, replica.schema);
      const iterated: unknown[] = [];
      for await (const row of routed.iterate(schema, [], { signal: pinned })) iterated.push(row.schema);
      assert.deepEqual(iterated, [primary.schema]);
      // Without a read URL the read pool is on the primary already: reads stay on it, the write pool stays for writes.
      const appName = `SELECT current_setting('application_name') AS name`;
      assert.equal((await alone.get(appName, [], { readPrimary: true }))?.name, 'alone:read');
    } finally {
      await Promise.all([routed.close(), alone.close()]);
      await primary.drop();
      await replica.drop();
    }
  });

  it("warns when the pools claim more than half of the server's max_connections", async () => {
    const registry = await blogRegistry();
    const [{ max_connections }] = await admin<{ max_connections: string }>('SHOW max_connections');
    const half = Math.floor(Number(max_connections) / 2);
    const check = async (options: Partial<PostgresOptions>) => {
      const logger = memoryLogger();
      const adapter = openPostgres({ writeUrl: PG_URL, ...options }, registry);
      try {
        await adapter.init(logger);
      } finally {
        await adapter.close();
      }
      return logger.lines.filter((l) => l.level === 'warn');
    };
    const warned = await check({ writePool: half, readPool: 1 });
    assert.equal(warned.length, 1);
    assert.match(warned[0].message!, new RegExp(`pools claim ${half + 1} connections, over half of the server's max_connections \\(${max_connections}\\)`));
    assert.deepEqual(await check({}), []);
  });
});

describe('PostgreSQL prepared statements', { skip: postgres.skip }, () => {
  const preparedOnReadConnection = async (server: TestServer, adapter: Adapter) => {
    const created = await server.request('POST', '/companies', { body: { name: 'Acme' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.request('GET', '/companies')).status, 200);
    // One read connection: the list above and this query share a session.
    return (await adapter.all('SELECT name FROM pg_prepared_statements')).map((r) => r.name as string);
  };

  it('prepares the SQL it builds once per connection by default', async () => {
    const backend = pgBackend({ readPool: 1 });
    const server = await startServer(backend);
    try {
      const names = await preparedOnReadConnection(server, backend.opened.adapter);
      assert.ok(names.some((n) => n.startsWith('mfx_')), `expected named statements, got ${JSON.stringify(names)}`);
    } finally {
      await server.close();
    }
  });

  it('prepares nothing with binary_parameters=yes in the URL, as a transaction-mode pooler needs', async () => {
    const backend = pgBackend({ readPool: 1, rewriteUrl: (url) => `${url}&binary_parameters=yes` });
    const server = await startServer(backend);
    try {
      assert.deepEqual(await preparedOnReadConnection(server, backend.opened.adapter), []);
    } finally {
      await server.close();
    }
  });
});

describe("PostgreSQL with pg's pipeline mode", { skip: postgres.skip }, () => {
  it('serves registry statements through pg.Query, since pipeline mode refuses custom submittables', async () => {
    const server = await startServer(pgBackend({ poolConfig: { pipeline: true } }), { fixture: 'parity' });
    try {
      for (let i = 0; i < 3; i++) {
        const list = await server.request('GET', '/user');
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(list.body.data, []);
        const missing = await server.request('GET', '/user/nope');
        assert.equal(missing.status, 404, missing.text);
      }
    } finally {
      await server.close();
    }
  });
});

describe('PostgreSQL timeouts', { skip: postgres.skip }, () => {
  /** Holds an exclusive lock on a table from another session until released. */
  async function lockTable(schema: string, table: string) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query('BEGIN');
    await client.query(`LOCK TABLE "${schema}"."${table}" IN ACCESS EXCLUSIVE MODE`);
    return async () => {
      await client.query('ROLLBACK');
      await client.end();
    };
  }

  it("maps the server's statement_timeout to 504 TIMEOUT", async () => {
    const backend = pgBackend({ poolConfig: { statement_timeout: 300 } });
    const server = await startServer(backend, { fixture: 'parity' });
    const release = await lockTable(backend.opened.schema, 'user');
    try {
      const res = await server.request('GET', '/user');
      assert.equal(res.status, 504, res.text);
      assert.equal(res.body.error.code, 'TIMEOUT');
    } finally {
      await release();
      await server.close();
    }
  });

  it('cancels the running statement at the QueryTimeout deadline', HANG, async () => {
    const name = uniqueName();
    const backend = pgBackend({ poolConfig: { application_name: name } });
    const server = await startServer(backend, { fixture: 'parity', config: { queryTimeout: '300ms' } });
    const release = await lockTable(backend.opened.schema, 'user');
    try {
      const res = await server.request('GET', '/user');
      assert.equal(res.status, 504, res.text);
      assert.equal(res.body.error.code, 'TIMEOUT');
      // The blocked statement was cancelled on the server, not left waiting on the lock (the cancel reaches the server after the 504).
      await until(async () => {
        const [{ waiting }] = await admin<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name LIKE $1 AND state = 'active'`,
          [`${name}:%`],
        );
        return waiting === 0;
      });
    } finally {
      await release();
      await server.close();
    }
  });

  it('closes a connection a cancel was sent on instead of handing it to the next statement', HANG, async () => {
    // A CancelRequest travels on its own socket and may land after its statement finished:
    // a reused connection would have the next request's statement cancelled instead.
    const { url, drop } = await freshSchema();
    const adapter = openPostgres({ writeUrl: url, writePool: 1, readPool: 1 }, await blogRegistry());
    const pid = async (db: Pick<Adapter, 'raw'> = adapter) => (await db.raw('SELECT pg_backend_pid() AS pid'))[0].pid as number;
    try {
      const first = await pid();
      assert.equal(await pid(), first, 'an untouched connection is reused');
      const controller = new AbortController();
      const slow = adapter.raw('SELECT pg_sleep(5)', [], { signal: controller.signal });
      await running(first, 'pg_sleep');
      controller.abort('client closed');
      await assert.rejects(slow, { name: 'AbortedError' });
      const second = await pid();
      assert.notEqual(second, first);

      // The same inside a transaction: its connection is closed when the transaction ends.
      const inTx = new AbortController();
      let txPid = 0;
      await assert.rejects(
        adapter.transaction(async (tx) => {
          txPid = await pid(tx);
          const sleeping = tx.raw('SELECT pg_sleep(5)', [], { signal: inTx.signal });
          await running(txPid, 'pg_sleep');
          inTx.abort('client closed');
          await sleeping;
        }),
        { name: 'AbortedError' },
      );
      const afterTx = await adapter.transaction((tx) => pid(tx));
      assert.notEqual(afterTx, txPid);
      assert.equal(await pid(), second, 'the read pool kept its connection');
    } finally {
      await adapter.close();
      await drop();
    }
  });
});

/** A TCP proxy in front of PostgreSQL that can be cut and restored. */
async function pgProxy() {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createTcpServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    /** `url` with its host and port replaced by the proxy's. */
    route(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('PostgreSQL faults', { skip: postgres.skip }, () => {
  it('answers every request in flight when its backends are terminated, then recovers', HANG, async () => {
    const name = uniqueName();
    const server = await startServer(pgBackend({ poolConfig: { application_name: name } }), {});
    try {
      const user = await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com' } });
      assert.equal(user.status, 201, user.text);
      const statuses: number[] = [];
      const codes = new Set<string>();
      const firstAnswer = gate();
      const load = Array.from({ length: 120 }, async (_, i) => {
        const res =
          i % 3 === 0
            ? await server.request('POST', '/posts', { body: { title: `Post ${i}`, userId: user.body.data.id } })
            : await server.request('GET', i % 3 === 1 ? '/posts' : `/users/${user.body.data.id}`);
        statuses.push(res.status);
        firstAnswer.open();
        if (res.status >= 500) codes.add(res.body.error.code);
      });
      // The pools hold a few connections: once one request is answered, the rest are running or waiting for one.
      await firstAnswer.opened;
      const killed = await admin<{ pid: number }>(
        `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name LIKE $1`,
        [`${name}:%`],
      );
      assert.ok(killed.length > 0, 'the server had backends to terminate');
      await Promise.all(load); // a request that hung after its backend was terminated fails the test by its timeout
      assert.equal(statuses.length, 120);
      for (const status of statuses) assert.ok([200, 201, 500].includes(status), `unexpected status ${status}`);
      assert.deepEqual([...codes].filter((c) => c !== 'DB_ERROR'), []);
      // The pools replace the dead connections: no restart needed.
      assert.equal((await server.request('GET', '/posts')).status, 200);
      assert.equal((await server.request('POST', '/posts', { body: { title: 'after', userId: user.body.data.id } })).status, 201);
      assert.equal((await server.request('GET', '/ready')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('reports not ready while the database is unreachable and recovers without a restart', HANG, async () => {
    const proxy = await pgProxy();
    const server = await startServer(pgBackend({ rewriteUrl: proxy.route, poolConfig: { connectionTimeoutMillis: 500 } }), {
      config: { healthTimeout: '1s' },
    });
    try {
      assert.equal((await server.request('GET', '/ready')).status, 200);
      proxy.cut();
      const ready = await server.request('GET', '/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { status: 'not_ready' });
      const list = await server.request('GET', '/posts');
      assert.equal(list.status, 500);
      assert.equal(list.body.error.code, 'DB_ERROR');
      assert.equal((await server.request('GET', '/live')).status, 200);
      proxy.restore();
      // Ready again once a readiness probe gets through to the restored database.
      await until(async () => (await server.request('GET', '/ready')).status === 200);
      assert.equal((await server.request('GET', '/posts')).status, 200);
    } finally {
      await server.close();
      await proxy.close();
    }
  });
});
