// PostgreSQL beyond one server, for the scale-out suite: a primary and a
// streaming read replica made with initdb and pg_basebackup on free loopback
// ports, and PgBouncer in transaction mode in front of both, everything in a
// temporary directory of its own. Nothing here touches the shared server on
// 5432. `stop()` ends exactly what `startCluster()` started: the two servers
// through pg_ctl on their data directories (their postmaster PID if that
// fails), PgBouncer by the PID of the child it is.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { until } from './wait.js';

/** The programs a cluster needs, and the user they run as. */
export interface ClusterTools {
  /** The directory of initdb, pg_ctl, pg_basebackup and postgres. */
  bin: string;
  pgbouncer: string;
  /** The `postgres` user when this process is root (initdb and PgBouncer refuse root); null runs them as ourselves. */
  runAs: { uid: number; gid: number } | null;
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** A PostgreSQL bin directory with the server programs, newest version first (PG_BIN wins). */
function serverBin(): string | null {
  const needed = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];
  const candidates = process.env.PG_BIN ? [process.env.PG_BIN] : [];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join('/usr/lib/postgresql', v, 'bin')));
  }
  return candidates.find((dir) => needed.every((name) => executable(join(dir, name)))) ?? null;
}

function pgbouncerPath(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin'];
  return dirs.map((dir) => join(dir, 'pgbouncer')).find(executable) ?? null;
}

/** uid and gid of `name` from /etc/passwd, or null. */
function systemUser(name: string): { uid: number; gid: number } | null {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name) return { uid: Number(uid), gid: Number(gid) };
  }
  return null;
}

/**
 * The tools, or why the cluster cannot be made here (a skip reason). Under
 * CI=true a missing tool is an error: CI installs them (.ci/run).
 *
 * @example
 * const found = clusterTools(); describe('scale-out', { skip: 'skip' in found ? found.skip : false }, ...)
 */
export function clusterTools(): { tools: ClusterTools } | { skip: string } {
  const bin = serverBin();
  const pgbouncer = pgbouncerPath();
  const root = process.getuid?.() === 0;
  const runAs = root ? systemUser('postgres') : null;
  const missing = [
    bin ? null : 'the PostgreSQL server programs (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/*/bin, or PG_BIN)',
    pgbouncer ? null : 'pgbouncer (apt-get install -y pgbouncer)',
    root && !runAs ? 'a postgres user to run them as (initdb refuses root)' : null,
  ].filter(Boolean);
  if (missing.length === 0) return { tools: { bin: bin!, pgbouncer: pgbouncer!, runAs } };
  const reason = `the scale-out cluster needs ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true: install them (see .ci/run)`);
  process.stderr.write(`\n!!! SKIPPING THE SCALE-OUT TESTS: ${reason} !!!\n\n`);
  return { skip: reason };
}

/** Runs a program to its end (as the cluster's user); rejects with its output when it fails. */
function run(tools: ClusterTools, command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, HOME: cwd, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'], ...tools.runAs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', reject);
    // 'exit', not 'close': pg_ctl leaves a postmaster behind, which must not hold us up.
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

/** A free TCP port on 127.0.0.1 (asked of the kernel). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One server of the cluster (or PgBouncer): where it listens and connection strings to it. */
export interface Endpoint {
  port: number;
  /** `postgres://postgres@127.0.0.1:PORT/DB`, with `?query` appended when given. */
  url(database: string, query?: string): string;
}

const endpoint = (port: number): Endpoint => ({
  port,
  url: (database, query) => `postgres://postgres@127.0.0.1:${port}/${database}${query ? `?${query}` : ''}`,
});

export interface Cluster {
  primary: Endpoint;
  replica: Endpoint;
  /**
   * PgBouncer (transaction pooling): database DB reaches DB on the primary,
   * DB_ro the same database on the replica, for every database named to
   * `startCluster`.
   */
  bouncer: Endpoint;
  /** Runs SQL on the primary or the replica directly (not through PgBouncer). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(on: 'primary' | 'replica', database: string, sql: string, params?: unknown[]): Promise<R[]>;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  /** Stops replay on the replica (it keeps receiving WAL): from now on it lags, deterministically. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stop(): Promise<void>;
}

const PRIMARY_SETTINGS = (port: number) => `
# mfx scale-out test cluster: loopback only, no socket file, small, and fast rather than crash-safe.
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = ''
max_connections = 40
shared_buffers = 16MB
fsync = off
full_page_writes = off
wal_level = replica
max_wal_senders = 4
hot_standby = on
`;

/**
 * Makes and starts the cluster: initdb and start the primary, create
 * `databases` on it, pg_basebackup -R the replica and start it streaming,
 * then PgBouncer in transaction mode in front.
 *
 * @example
 * const cluster = await startCluster(tools, ['app']);
 * const writeUrl = cluster.bouncer.url('app', 'binary_parameters=yes');
 */
export async function startCluster(tools: ClusterTools, databases: readonly string[]): Promise<Cluster> {
  const base = await mkdtemp(join(tmpdir(), 'mfx-scale-'));
  if (tools.runAs) chownSync(base, tools.runAs.uid, tools.runAs.gid);
  const bin = (name: string) => join(tools.bin, name);
  const primaryDir = join(base, 'primary');
  const replicaDir = join(base, 'replica');
  const [primaryPort, replicaPort, bouncerPort] = await distinctPorts(3);
  const started: { servers: string[]; bouncer: ChildProcess | null; clients: pg.Client[] } = { servers: [], bouncer: null, clients: [] };

  const stop = async () => {
    await Promise.all(started.clients.map((client) => client.end().catch(() => {})));
    if (started.bouncer && started.bouncer.exitCode === null && started.bouncer.signalCode === null) {
      const exited = new Promise((resolve) => started.bouncer!.once('exit', resolve));
      started.bouncer.kill('SIGTERM');
      await exited;
    }
    // The replica first, so it does not retry a primary that is going away.
    for (const dir of [...started.servers].reverse()) await stopServer(tools, dir);
    await rm(base, { recursive: true, force: true });
  };

  try {
    await run(tools, bin('initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'], base);
    await appendFile(join(primaryDir, 'postgresql.conf'), PRIMARY_SETTINGS(primaryPort));
    await run(tools, bin('pg_ctl'), ['-D', primaryDir, '-l', join(base, 'primary.log'), '-w', '-t', '60', 'start'], base);
    started.servers.push(primaryDir);

    const admin = new pg.Client({ connectionString: endpoint(primaryPort).url('postgres') });
    await admin.connect();
    try {
      for (const database of databases) await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }

    // -R writes standby.signal and primary_conninfo: the copy starts as a streaming replica.
    await run(tools, bin('pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'], base);
    await appendFile(join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    await run(tools, bin('pg_ctl'), ['-D', replicaDir, '-l', join(base, 'replica.log'), '-w', '-t', '60', 'start'], base);
    started.servers.push(replicaDir);

    started.bouncer = await startBouncer(tools, base, { bouncerPort, primaryPort, replicaPort, databases });
  } catch (error) {
    await stop();
    throw error;
  }

  const clients = new Map<string, Promise<pg.Client>>();
  const clientOf = (on: 'primary' | 'replica', database: string) => {
    const key = `${on}/${database}`;
    let client = clients.get(key);
    if (!client) {
      const opened = new pg.Client({ connectionString: endpoint(on === 'primary' ? primaryPort : replicaPort).url(database), application_name: 'mfx-test-admin' });
      started.clients.push(opened);
      client = opened.connect().then(() => opened);
      clients.set(key, client);
    }
    return client;
  };
  const query: Cluster['query'] = async (on, database, sql, params) => (await (await clientOf(on, database)).query(sql, params)).rows as never;

  return {
    primary: endpoint(primaryPort),
    replica: endpoint(replicaPort),
    bouncer: endpoint(bouncerPort),
    query,
    async caughtUp() {
      // The insert position: past every commit the primary has answered, flushed to disk or not yet.
      const [{ lsn }] = await query<{ lsn: string }>('primary', 'postgres', 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      await until(async () => (await query<{ done: boolean }>('replica', 'postgres', 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]))[0].done);
    },
    async pauseReplay() {
      // Replay stops before the next record it would apply: whatever the primary writes from here on stays unapplied.
      await query('replica', 'postgres', 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await query('replica', 'postgres', 'SELECT pg_wal_replay_resume()');
    },
    stop,
  };
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** pg_ctl stop on a data directory we started; the postmaster's PID (from postmaster.pid) if pg_ctl fails. */
async function stopServer(tools: ClusterTools, dir: string): Promise<void> {
  try {
    await run(tools, join(tools.bin, 'pg_ctl'), ['-D', dir, '-m', 'fast', '-w', '-t', '60', 'stop'], dir);
  } catch {
    const pid = Number((await readFile(join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * PgBouncer as a child process of ours, with its own ini: transaction
 * pooling, trust auth (its user list names postgres), one alias per
 * database for the replica; resolves once it listens.
 */
async function startBouncer(
  tools: ClusterTools,
  base: string,
  ports: { bouncerPort: number; primaryPort: number; replicaPort: number; databases: readonly string[] },
): Promise<ChildProcess> {
  const ini = join(base, 'pgbouncer.ini');
  const users = join(base, 'pgbouncer-users.txt');
  await writeFile(users, '"postgres" ""\n');
  const aliases = ports.databases.flatMap((db) => [
    `${db} = host=127.0.0.1 port=${ports.primaryPort} dbname=${db}`,
    `${db}_ro = host=127.0.0.1 port=${ports.replicaPort} dbname=${db}`,
  ]);
  await writeFile(
    ini,
    [
      '[databases]',
      ...aliases,
      '',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${ports.bouncerPort}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'default_pool_size = 6',
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  const child = spawn(tools.pgbouncer, [ini], { cwd: base, stdio: ['ignore', 'pipe', 'pipe'], ...tools.runAs });
  let output = '';
  const listening = `listening on 127.0.0.1:${ports.bouncerPort}`;
  const onData = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  try {
    await new Promise<void>((resolve, reject) => {
      const check = () => output.includes(listening) && resolve();
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`pgbouncer exited with ${code} before listening:\n${output}`)));
    });
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGTERM');
    throw error;
  }
  // Its log is not read further; the pipes stay drained.
  child.stdout!.removeAllListeners('data').resume();
  child.stderr!.removeAllListeners('data').resume();
  child.removeAllListeners('exit');
  return child;
}
