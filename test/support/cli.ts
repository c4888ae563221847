// The mfx command as a user runs it: a process of its own, its exit code,
// its output line by line (tests wait on lines, never on the clock), and a
// database of each backend the process can reach by URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type Backend, freshSchema } from './backends.js';
import { Recorder } from './wait.js';

export const root = resolve(import.meta.dirname, '../..');
export const mfxBin = join(root, 'bin/mfx.mjs');

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Reads the first N lines of stdout, then closes its reading end, as `| head -N` would (0: before the command writes). */
  head?: number;
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function spawnMfx(args: readonly string[], options: RunOptions): ChildProcess {
  return spawn(process.execPath, [mfxBin, ...args], { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Runs `mfx ...args` to its end.
 *
 * @example
 * const run = await runMfx(['migrate', '--help']);
 * assert.equal(run.code, 0);
 */
export function runMfx(args: readonly string[], options: RunOptions = {}): Promise<Ran> {
  const child = spawnMfx(args, options);
  let stdout = '';
  let stderr = '';
  const { head } = options;
  if (head === 0) child.stdout!.destroy();
  else
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = stdout.split('\n');
      if (head === undefined || lines.length <= head) return;
      stdout = `${lines.slice(0, head).join('\n')}\n`;
      child.stdout!.destroy();
    });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface Running {
  child: ChildProcess;
  /** Every line written so far, stdout and stderr, in order of arrival. */
  lines: Recorder<string>;
  /** The first line (written or still to come) that matches. */
  line(match: RegExp): Promise<string>;
  /** The parsed JSON log line (written or still to come) whose fields include `fields`. */
  logLine(fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Every JSON log line written so far, parsed (a line that starts with `{` and is not JSON throws). */
  logs(): Record<string, unknown>[];
  /** Resolves once the process has ended (its output read to the end). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** Sends the signal (SIGTERM unless given) and resolves with the exit; the output can still be waited on meanwhile. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `mfx ...args` and follows its output. The test ends it (`stop()`);
 * an `after` hook should too, for a test that fails before.
 *
 * @example
 * const serve = startMfx(['serve', '--port', '0', '--db', 'sqlite::memory:', '--manifest', dir]);
 * const url = (await serve.line(/^mfx serving /)).split(' ')[2];
 */
export function startMfx(args: readonly string[], options: RunOptions = {}): Running {
  const child = spawnMfx(args, options);
  const lines = new Recorder<string>();
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      partial += chunk.toString();
      const complete = partial.split('\n');
      partial = complete.pop()!;
      for (const line of complete) lines.push(line);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const ended = exited.then(({ code }) => {
    throw new Error(`mfx ${args[0]} exited (${code}) before the line the test waits for:\n${output}`);
  });
  ended.catch(() => {});
  // A line already written wins over the exit (a test may look after stopping the command).
  const first = <T>(match: (line: string) => boolean, as: (line: string) => T): Promise<T> => {
    const seen = lines.seen.find(match);
    return seen !== undefined ? Promise.resolve(as(seen)) : Promise.race([lines.next(match).then(as), ended]);
  };
  const fieldsMatch = (fields: Record<string, unknown>) => (line: string) => {
    const record = parseJson(line);
    return record !== undefined && Object.entries(fields).every(([key, value]) => JSON.stringify(record[key]) === JSON.stringify(value));
  };
  return {
    child,
    lines,
    line: (match) => first((line) => match.test(line), (line) => line),
    logLine: (fields) => first(fieldsMatch(fields), (line) => parseJson(line)!),
    logs: () => lines.seen.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    output: () => output,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The URL `mfx serve` printed (`mfx serving URL (database ...)`), on 127.0.0.1. */
export async function servingUrl(serve: Running): Promise<string> {
  const line = await serve.line(/^mfx serving /);
  return line.split(' ')[2].replace('//localhost:', '//127.0.0.1:');
}

export interface CliDatabase {
  /** The URL the command is given. */
  url: string;
  /** The tables the database holds now (none when the SQLite file does not exist). */
  tables(): Promise<string[]>;
  /** Runs SQL with `?` placeholders. */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** True once the command created the database's file (SQLite on a file); always true for PostgreSQL. */
  exists(): boolean;
  drop(): Promise<void>;
}

/**
 * An empty database of the backend that another process reaches by URL:
 * a file in a temporary directory (not created until a command does) for
 * SQLite, a schema of its own for PostgreSQL.
 *
 * @example
 * const db = await cliDatabase(backend);
 * await runMfx(['migrate', '--db', db.url, '--manifest', dir]);
 * assert.ok((await db.tables()).includes('posts'));
 */
export async function cliDatabase(backend: Backend): Promise<CliDatabase> {
  if (backend.name === 'postgres') {
    const { url, schema, drop } = await freshSchema();
    const query = async (sql: string, params: unknown[] = []) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        let n = 0;
        return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    };
    return {
      url,
      query,
      tables: async () => (await query('SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [schema])).map((r) => String(r.table_name)),
      exists: () => true,
      drop,
    };
  }
  if (backend.name !== 'sqlite-file') throw new Error(`cliDatabase: ${backend.name} is not reachable from another process; use sqliteFileBackend`);
  const dir = mkdtempSync(join(tmpdir(), 'mfx-cli-'));
  const path = join(dir, 'app.db');
  const query = async (sql: string, params: unknown[] = []) => {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...params) as Record<string, unknown>[];
    } finally {
      db.close();
    }
  };
  return {
    url: `sqlite:${path}`,
    query,
    tables: async () =>
      existsSync(path) ? (await query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")).map((r) => String(r.name)) : [],
    exists: () => existsSync(path),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What a suite's commands and databases are started through, so its `after` hook ends them all. */
export interface CliSuite {
  /** Starts `mfx ...args` (see startMfx), stopped after the suite. */
  start(args: readonly string[], options?: RunOptions): Running;
  /** An empty database of the suite's backend (see cliDatabase), dropped after the suite. */
  database(): Promise<CliDatabase>;
}

/**
 * Registers an `after` hook on the calling suite that stops every command
 * started through the returned object and then drops every database, also
 * when a test failed half way.
 *
 * @example
 * eachBackend('mfx serve', (backend) => {
 *   const cli = cliSuite(backend);
 *   it('serves', async () => {
 *     const db = await cli.database();
 *     const url = await servingUrl(cli.start(['serve', '--db', db.url, '--port', '0']));
 *   });
 * });
 */
export function cliSuite(backend: Backend): CliSuite {
  const running: Running[] = [];
  const databases: CliDatabase[] = [];
  after(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await Promise.all(databases.map((db) => db.drop()));
  });
  return {
    start(args, options) {
      const started = startMfx(args, options);
      running.push(started);
      return started;
    },
    async database() {
      const db = await cliDatabase(backend);
      databases.push(db);
      return db;
    },
  };
}
