// Graceful shutdown under load: stop accepting at once, answer what is in flight with Connection: close, exit with the last request.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createServer } from '@mfx/runtime';
import { type Backend, freshSchema, sqliteFileBackend } from '../support/backends.js';
import { servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir, loadFixture } from '../support/fixtures.js';
import { parseResponses } from '../support/raw-http.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend, postgres } from '../support/suite.js';
import { gate, Recorder } from '../support/wait.js';

/** The stopped server's rows are read from outside it (and `mfx serve` runs in a child process), so SQLite runs on a file: `:memory:` goes with its server. */
const onDisk = [sqliteFileBackend, postgres];

interface Answer {
  status: number;
  connection: string | undefined;
  body: any;
}

/** A POST over node:http (fetch hides Connection), on `agent`'s keep-alive connections. */
function post(agent: Agent, url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text ? JSON.parse(text) : undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Resolves with the error code of a new TCP connection to `port` (ECONNREFUSED once the listener is closed), or 'connected'. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * Steady create load from real keep-alive clients: each of `connections`
 * workers POSTs tags in a loop until an error ends it. Every answer and
 * every failure is recorded by the tag's name.
 */
class CreateLoad {
  readonly agent: Agent;
  readonly answered = new Map<string, Answer>();
  /** Requests that ended in a reset: sent, never answered. */
  readonly resets: string[] = [];
  /** Requests whose connection was refused: never sent. */
  refused = 0;
  private readonly workers: Promise<void>[] = [];
  /** The names of answered creates, as they are answered. */
  private readonly answers = new Recorder<string>();

  constructor(
    private readonly url: string,
    connections: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
    for (let w = 0; w < connections; w++) this.workers.push(this.work(w));
  }

  /** Resolves once `count` creates were answered. */
  async answeredAtLeast(count: number): Promise<void> {
    await this.answers.count(count);
  }

  /** Resolves once every worker has stopped (each ends at its first error). */
  async done(): Promise<void> {
    await Promise.all(this.workers);
    this.agent.destroy();
  }

  private async work(worker: number): Promise<void> {
    for (let i = 0; ; i++) {
      const name = `load-${worker}-${i}`;
      try {
        this.answered.set(name, await post(this.agent, `${this.url}/tags`, { name }));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') this.refused++;
        else this.resets.push(name);
        return;
      }
      this.answers.push(name);
    }
  }
}

/** Every answered create is in the database, and nothing else is. */
function assertRowsMatchAnswers(load: CreateLoad, stored: string[]): void {
  const created = [...load.answered].filter(([, answer]) => answer.status === 201).map(([name]) => name);
  assert.deepEqual([...load.answered.values()].filter((a) => a.status !== 201), [], 'every answered create succeeded');
  assert.deepEqual(new Set(stored), new Set(created), 'the stored rows are exactly the answered creates');
  for (const name of load.resets) assert.ok(!stored.includes(name), `${name} was reset and is not stored`);
}

/** The names of the load's tags in a stopped server's database. */
async function storedNames(backend: Backend['name'], url: string): Promise<string[]> {
  if (backend === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query("SELECT name FROM tags WHERE name LIKE 'load-%'")).rows.map((r) => r.name);
    } finally {
      await client.end();
    }
  }
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    return (db.prepare("SELECT name FROM tags WHERE name LIKE 'load-%'").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

/** A raw connection to write to at will and read the answers of. */
async function openRaw(port: number) {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise((done) => socket.once('connect', done));
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  let ended = 'closed';
  socket.on('error', (error: NodeJS.ErrnoException) => (ended = error.code ?? error.message));
  const closed = new Promise<void>((done) => socket.once('close', done));
  socket.on('end', () => socket.end());
  return {
    write: (text: string) => new Promise<void>((done) => socket.write(text, () => done())),
    /** The answers read once the server has closed the connection. */
    closed: async () => {
      await closed;
      return { responses: parseResponses(received), ended };
    },
  };
}

const create = (name: string, headers = '') => {
  const body = JSON.stringify({ name });
  return `POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${body.length}\r\n\r\n${body}`;
};

eachBackend('app.stop() under keep-alive load', (backend) => {
  it('refuses new connections at once, answers what is in flight and arrives on open connections with Connection: close, and resolves with the last request', { timeout: 60_000 }, async () => {
    const logger = memoryLogger();
    const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, logger, shutdownTimeout: '30s' });
    app.register(await loadFixture('blog'));
    // Creates marked x-hold wait here until released: they are in flight when stop() is called.
    const released = gate();
    const held = new Recorder<string>();
    app.use('service', async (ctx, next) => {
      if (ctx.req.headers['x-hold']) {
        held.push(ctx.requestId);
        await released.opened;
      }
      await next();
    });
    const { adapter, drop, url: dbUrl } = await backend.open(app.registry);
    app.setDB(adapter);
    const { port } = await app.start();
    const base = `http://127.0.0.1:${port}/api`;
    try {
      // 28 keep-alive connections: 24 get a create held in flight, 4 stay idle (closed when the drain ends).
      const agent = new Agent({ keepAlive: true, maxSockets: 28 });
      const warm = await Promise.all(Array.from({ length: 28 }, (_, i) => post(agent, `${base}/tags`, { name: `load-warm-${i}` })));
      assert.deepEqual(warm.map((a) => [a.status, a.connection]), Array(28).fill([201, 'keep-alive']));
      const inFlight = Array.from({ length: 24 }, (_, i) => post(agent, `${base}/tags`, { name: `load-held-${i}` }, { 'x-hold': '1' }));
      // One more held create on a raw connection, to pipeline a second request behind it during the drain.
      const pipelined = await openRaw(port);
      await pipelined.write(create('load-pipe-a', 'X-Hold: 1\r\n'));
      await held.count(25);
      const idle = Object.values(agent.freeSockets).flat();
      assert.equal(idle.length, 4);
      const idleClosed = Promise.all(idle.map((socket) => new Promise((done) => socket!.once('close', done))));

      const stopping = app.stop();
      assert.equal(await connectOutcome(port), 'ECONNREFUSED', 'no connection is accepted once stop() was called');
      // Behind a held answer that will close its connection, a pipelined request is not served.
      await pipelined.write(create('load-pipe-b'));
      // A request on a connection still open (an idle one from the pool) is served, and closes it. Its round trip
      // also lets the server read the pipelined request first (its bytes arrived first).
      const late = await post(agent, `${base}/tags`, { name: 'load-late' });
      assert.deepEqual([late.status, late.connection], [201, 'close'], 'a request arriving on an open connection during the drain is served and closes it');
      released.open();
      const answers = await Promise.all(inFlight);
      assert.deepEqual(answers.map((a) => [a.status, a.connection]), Array(24).fill([201, 'close']), 'answers in flight at stop say Connection: close');
      const pipeAnswers = await pipelined.closed();
      assert.deepEqual(pipeAnswers.responses.map((r) => [r.status, r.headers.connection, r.body.data.name]), [[201, 'close', 'load-pipe-a']]);
      await stopping;
      await idleClosed;
      assert.ok(!logger.lines.some((l) => l.message?.startsWith('shutdown timeout')), 'stop() resolved with the last request, not at the timeout');
      const stored = await storedNames(backend.name, dbUrl);
      const expected = [...Array.from({ length: 28 }, (_, i) => `load-warm-${i}`), ...Array.from({ length: 24 }, (_, i) => `load-held-${i}`), 'load-pipe-a', 'load-late'];
      assert.deepEqual(new Set(stored), new Set(expected), 'every answered create is stored; the pipelined one behind a closing answer is not');
    } finally {
      await app.stop();
      await drop();
    }
  });
}, onDisk);

eachBackend('mfx serve stopped by SIGTERM under steady load', (backend) => {
  it('stops accepting at once, answers every request it took, and exits with the last one, well within the budget', { timeout: 60_000 }, async (t) => {
    const manifest = await fixtureManifestDir('blog');
    const dir = await mkdtemp(join(tmpdir(), 'mfx-shutdown-'));
    const schema = backend.name === 'postgres' ? await freshSchema() : null;
    const dbUrl = schema ? schema.url : `sqlite:${join(dir, 'app.db')}`;
    try {
      // A budget of 120 s: the test's own timeout (60 s) fails a drain that waits it out.
      const server = startMfx(['serve', '--manifest', manifest, '--db', dbUrl, '--port', '0'], { env: { SHUTDOWN_TIMEOUT_S: '120' } });
      const url = await servingUrl(server);
      const port = Number(new URL(url).port);
      const load = new CreateLoad(url, 24);
      await load.answeredAtLeast(300);
      const stopped = server.stop('SIGTERM');
      await server.logLine({ msg: 'draining: no longer accepting connections' });
      assert.equal(await connectOutcome(port), 'ECONNREFUSED', 'no connection is accepted once the drain began');
      assert.equal((await stopped).code, 0);
      await load.done();
      assert.doesNotMatch(server.output(), /shutdown timeout/, 'the drain ended with the last request, not at the budget');
      assert.match(server.output(), /"msg":"stopped"/);
      assertRowsMatchAnswers(load, await storedNames(backend.name, dbUrl));
      t.diagnostic(`answered ${load.answered.size}, reset (never processed) ${load.resets.length}, refused ${load.refused}; at the signal ${/"inflight":\d+/.exec(server.output())}`);
    } finally {
      await schema?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
}, onDisk);
