// The hand-written peer of the export workload (bench/analytics.bench.ts): node:http and
// better-sqlite3, `GET /api/readings/export` runs the statement mfx runs for an unfiltered
// export and streams the same CSV (BOM, header, RFC 4180 cells, formula guard) with backpressure.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const flags = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) flags.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const db = new Database(flags.get('db')!.replace(/^sqlite:/, ''), { readonly: true });
const columns = ['id', 'n', 'sensor', 'value', 'created_at', 'updated_at'];
const count = db.prepare('SELECT COUNT(*) AS n FROM "readings" "t" WHERE 1 = 1');
const select = db.prepare(`SELECT ${columns.map((c) => `"t"."${c}"`).join(', ')} FROM "readings" "t" WHERE 1 = 1 ORDER BY "t"."id" ASC LIMIT ?`);

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const server = createServer(async (req, res) => {
  if (!req.url?.startsWith('/api/readings/export')) {
    res.writeHead(404).end();
    return;
  }
  const total = (count.get() as { n: number }).n;
  if (total > 200_000) {
    res.writeHead(413, { 'content-type': 'application/json' }).end('{"error":{"code":"EXPORT_TOO_LARGE"}}');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="readings.csv"' });
  let pending = `\uFEFF${columns.join(',')}\r\n`;
  for (const row of select.iterate(200_001) as Iterable<Record<string, unknown>>) {
    pending += `${columns.map((c) => cell(row[c])).join(',')}\r\n`;
    if (pending.length >= 65536) {
      const ok = res.write(pending);
      pending = '';
      if (!ok) await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end(pending);
});
server.listen(Number(flags.get('port') ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`export-raw serving http://127.0.0.1:${port}/api`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
