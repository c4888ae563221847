// Hand-written peer of the analytics suite on node:http and better-sqlite3: the
// aggregate workloads' statements, written out as mfx generates them, prepared
// once on a read-only connection (the pragmas mfx sets on the writer), their
// rows decoded as mfx does (integer results carried as text) and sent in the
// same envelope. `node analytics-raw.js --db sqlite:FILE --port N`
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

type Row = Record<string, unknown>;

/** Path (below /api, query string excluded) → the statement and how its rows read. */
const ROUTES: Record<string, { sql: string; params: unknown[]; read(row: Row): Row }> = {
  '/sales/aggregate': {
    sql:
      'SELECT "q"."g0" AS "c0", CAST("q"."a0" AS TEXT) AS "c1", CAST("q"."a1" AS TEXT) AS "c2", "q"."a2" AS "c3", CAST("q"."a3" AS TEXT) AS "c4" ' +
      'FROM (SELECT "t"."region" AS "g0", COUNT(*) AS "a0", SUM("t"."qty") AS "a1", AVG("t"."price") AS "a2", MAX("t"."big") AS "a3" ' +
      'FROM "sales" "t" WHERE 1 = 1 AND "t"."deleted_at" IS NULL GROUP BY "t"."region") "q" ORDER BY "q"."g0" ASC NULLS LAST LIMIT ?',
    params: [100],
    read: (row) => ({ region: row.c0, count: Number(row.c1), sum_qty: Number(row.c2), avg_price: row.c3, max_big: Number(row.c4) }),
  },
};

const flags = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) flags.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const file = flags.get('db')!.replace(/^sqlite:/, '');
const writer = new Database(file);
writer.pragma('journal_mode = WAL');
writer.pragma('synchronous = NORMAL');
writer.pragma('foreign_keys = ON');
const reader = new Database(file, { readonly: true });
const prepared = new Map(Object.entries(ROUTES).map(([path, route]) => [`/api${path}`, { ...route, statement: reader.prepare(route.sql) }]));

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': randomUUID(), 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  const route = req.method === 'GET' ? prepared.get((req.url ?? '').split('?')[0]) : undefined;
  if (!route) return send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
  try {
    send(res, 200, { data: (route.statement.all(...route.params) as Row[]).map(route.read) });
  } catch {
    send(res, 500, { error: { code: 'DB_ERROR', message: 'internal server error' } });
  }
});

server.listen(Number(flags.get('port') ?? 0), '127.0.0.1', () => {
  console.log(`analytics-raw serving http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  process.once('SIGTERM', () => server.close(() => (reader.close(), writer.close(), process.exit(0))));
});
