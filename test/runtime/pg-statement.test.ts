// The prepared statements the PostgreSQL adapter runs registry SQL with:
// described once, then executed without Describe on every connection, with
// errors, empty results and dead connections answered once each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PreparedStatement, type StatementResult, StatementExecution } from '../../runtime/src/db/pg-statement.js';
import { freshSchema } from '../support/backends.js';
import { postgres } from '../support/suite.js';
import { until } from '../support/wait.js';

const parserFor = (oid: number) => pg.types.getTypeParser(oid, 'text') as (text: string) => unknown;

function execute(client: pg.Client, statement: PreparedStatement, values: unknown[] = []): Promise<StatementResult> {
  return new Promise((resolve, reject) => {
    client.query(new StatementExecution(statement, values, (error, result) => (error ? reject(error) : resolve(result!))));
  });
}

/** A connection to the test schema that counts the RowDescription messages it receives. */
async function countingClient(url: string): Promise<{ client: pg.Client; descriptions: () => number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let descriptions = 0;
  (client as unknown as { connection: { on(event: string, fn: () => void): void } }).connection.on('rowDescription', () => descriptions++);
  return { client, descriptions: () => descriptions };
}

describe('PostgreSQL prepared statements', { skip: postgres.skip }, () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  const clients: pg.Client[] = [];
  let counter = 0;
  const statement = (text: string) => new PreparedStatement(`mfx_test_${counter++}`, text, parserFor);
  const connect = async () => {
    const counting = await countingClient(schema.url);
    clients.push(counting.client);
    return counting;
  };

  before(async () => {
    schema = await freshSchema();
    const { client } = await connect();
    await client.query(`CREATE TABLE "items" ("id" integer PRIMARY KEY, "name" text NOT NULL, "data" jsonb, "ok" boolean)`);
    await client.query(`INSERT INTO "items" VALUES (1, 'one', '{"a":1}', true), (2, 'two', NULL, false)`);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await schema.drop();
  });

  it('asks the server to describe the rows once, then decodes later executions without it, on every connection', async () => {
    const byId = statement(`SELECT "id", "name", "data", "ok" FROM "items" WHERE "id" = $1`);
    const first = await connect();
    assert.deepEqual((await execute(first.client, byId, [1])).rows, [{ id: 1, name: 'one', data: { a: 1 }, ok: true }]);
    assert.equal(first.descriptions(), 1);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await execute(first.client, byId, [2])).rows, [{ id: 2, name: 'two', data: null, ok: false }]);
    }
    assert.equal(first.descriptions(), 1, 'later executions skip Describe');

    // Another connection parses the statement for itself but reuses the description.
    const second = await connect();
    assert.deepEqual((await execute(second.client, byId, [1])).rows, [{ id: 1, name: 'one', data: { a: 1 }, ok: true }]);
    assert.equal(second.descriptions(), 0);
    assert.deepEqual((await execute(second.client, byId, [99])).rows, []);
  });

  it('keeps any column name as a plain property, __proto__ included', async () => {
    const odd = statement(`SELECT 1 AS "__proto__", 'x' AS "constructor", 2 AS "a b"`);
    const { client } = await connect();
    for (let i = 0; i < 2; i++) {
      const [row] = (await execute(client, odd)).rows;
      assert.equal(Object.getPrototypeOf(row), Object.prototype);
      assert.deepEqual(Object.entries(row), [['__proto__', 1], ['constructor', 'x'], ['a b', 2]]);
    }
  });

  it('counts the rows of a statement without a result set, described once', async () => {
    const touch = statement(`UPDATE "items" SET "ok" = "ok" WHERE "id" <= $1`);
    const { client, descriptions } = await connect();
    assert.deepEqual(await execute(client, touch, [2]), { rows: [], rowCount: 2 });
    assert.deepEqual(await execute(client, touch, [1]), { rows: [], rowCount: 1 });
    assert.deepEqual(await execute(client, touch, [0]), { rows: [], rowCount: 0 });
    assert.equal(descriptions(), 0);
  });

  it('rejects a failing execution with the database error and keeps the statement and connection usable', async () => {
    const insert = statement(`INSERT INTO "items" ("id", "name") VALUES ($1, $2) RETURNING "id", "name"`);
    const { client } = await connect();
    await assert.rejects(execute(client, insert, [1, 'again']), (error: Error & { code?: string }) => error.code === '23505');
    assert.deepEqual((await execute(client, insert, [3, 'three'])).rows, [{ id: 3, name: 'three' }]);
    const count = statement(`SELECT COUNT(*)::int AS "n" FROM "items"`);
    assert.deepEqual((await execute(client, count)).rows, [{ n: 3 }]);
  });

  it('rejects SQL the server cannot parse, and prepares it again on the next try', async () => {
    const broken = statement(`SELECT "nope" FROM "items"`);
    const { client } = await connect();
    await assert.rejects(execute(client, broken), (error: Error & { code?: string }) => error.code === '42703');
    await assert.rejects(execute(client, broken), (error: Error & { code?: string }) => error.code === '42703');
    assert.deepEqual((await client.query('SELECT 1 AS "x"')).rows, [{ x: 1 }]);
  });

  /** Runs `statement` on `client`, counting how many times it answers; resolves with the first answer. */
  function counted(client: pg.Client, target: PreparedStatement) {
    let answers = 0;
    const first = new Promise<Error | null>((resolve) => {
      client.query(
        new StatementExecution(target, [], (error) => {
          answers++;
          resolve(error);
        }),
      );
    });
    return { first, answers: () => answers };
  }

  it('answers with an error when the connection dies under a running statement', async () => {
    const { client } = await connect();
    client.on('error', () => {});
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const run = counted(client, statement(`SELECT pg_sleep(5) AS "slept"`));
    const killer = await connect();
    // Terminated once the server shows the statement running.
    await until(async () => (await killer.client.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%'`, [pid])).rowCount);
    await killer.client.query('SELECT pg_terminate_backend($1)', [pid]);
    assert.ok((await run.first) instanceof Error);
    assert.equal(run.answers(), 1);
  });

  it("answers once when pg's query_timeout reports an error and the statement finishes later", async () => {
    const client = new pg.Client({ connectionString: schema.url, query_timeout: 100 });
    await client.connect();
    clients.push(client);
    const run = counted(client, statement(`SELECT pg_sleep(0.4) AS "slept"`));
    assert.match(String(await run.first), /Query read timeout/);
    // The server finishes the statement and reports ready; that second outcome is dropped. The connection
    // sends the next query only after that report, so its answer comes after the dropped outcome.
    assert.deepEqual((await client.query({ text: 'SELECT 1 AS "after"', query_timeout: 60_000 } as pg.QueryConfig)).rows, [{ after: 1 }]);
    assert.equal(run.answers(), 1);
  });

  it('fails loudly once and describes again when the schema changes the shape of the rows under it', async () => {
    const { client: admin } = await connect();
    await admin.query(`CREATE TABLE "shape" ("id" integer PRIMARY KEY)`);
    await admin.query(`INSERT INTO "shape" VALUES (1)`);
    const all = statement(`SELECT * FROM "shape"`);
    const first = await connect();
    assert.deepEqual((await execute(first.client, all)).rows, [{ id: 1 }]);
    await admin.query(`ALTER TABLE "shape" ADD COLUMN "label" text DEFAULT 'x'`);
    // A new connection parses the text afresh and gets two columns where one was described.
    const second = await connect();
    await assert.rejects(execute(second.client, all), /returned 2 columns where 1 were described/);
    assert.deepEqual((await execute(second.client, all)).rows, [{ id: 1, label: 'x' }]);
    assert.equal(second.descriptions(), 1);
  });
});
