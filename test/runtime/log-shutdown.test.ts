// `mfx serve`'s log when it is stopped: every request answered before the end has its access line
// in the output, whether the drain ends normally or a second signal cuts it short.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { cliSuite, type Running, servingUrl } from '../support/cli.js';
import { sqliteFileBackend } from '../support/backends.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { eachBackend, postgres } from '../support/suite.js';

/** A GET over node:http on `agent`'s one keep-alive connection, with our own request id; resolves with the status once the body is read. */
function get(agent: Agent, url: string, requestId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { 'x-request-id': requestId } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A create whose body never comes: the server has taken the request (it
 * answered `100 Continue` from the handler's turn) and waits for the body, so
 * a drain waits for it. Resolves once the server took it.
 */
function heldCreate(url: string): Promise<Socket> {
  const { hostname, port, pathname } = new URL(`${url}/docs`);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => {});
    socket.once('connect', () =>
      socket.write(`POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`),
    );
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.startsWith('HTTP/1.1 100 Continue')) resolve(socket);
    });
    socket.once('close', () => reject(new Error(`the held create was closed: ${received}`)));
  });
}

const accessIds = (server: Running) =>
  server.lines.seen
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => String((JSON.parse(line) as { requestId: string }).requestId))
    .sort();

eachBackend(
  'mfx serve stopped: the access log',
  (backend) => {
    let manifest: string;
    const sockets: Socket[] = [];
    // Registered before cliSuite's hook: after hooks run in order, so the sockets go before the servers stop.
    after(() => {
      for (const socket of sockets) socket.destroy();
    });
    const cli = cliSuite(backend);
    const serve = async () => {
      const db = await cli.database();
      const server = cli.start(['serve', '--manifest', manifest, '--db', db.url, '--port', '0']);
      return { server, url: await servingUrl(server) };
    };
    before(async () => {
      manifest = await fixtureManifestDir('query');
    });

    it('SIGTERM just after a few requests: every one of them has its line, then the process exits 0', async () => {
      const { server, url } = await serve();
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const ids = ['term-1', 'term-2', 'term-3', 'term-4', 'term-5'];
      for (const id of ids) assert.equal(await get(agent, `${url}/docs`, id), 200);
      assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
      agent.destroy();
      assert.deepEqual(accessIds(server), ids);
      assert.ok(server.lines.seen.some((line) => line.includes('"msg":"stopped"')));
    });

    it('a second signal during the drain ends the process without waiting for the request in flight, every line logged before it written', async () => {
      const { server, url } = await serve();
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const ids = ['twice-1', 'twice-2', 'twice-3', 'twice-4', 'twice-5'];
      for (const id of ids) assert.equal(await get(agent, `${url}/docs`, id), 200);
      // A request the drain waits for, so the second signal comes while the server is draining.
      sockets.push(await heldCreate(url));
      server.child.kill('SIGTERM');
      const draining = await server.logLine({ msg: 'draining: no longer accepting connections' });
      assert.equal(draining.inflight, 1);
      // Answered during the drain, on the connection that stayed open: its line is the last one before the second signal.
      assert.equal(await get(agent, `${url}/docs`, 'twice-6'), 200);
      agent.destroy();
      assert.deepEqual(await server.stop('SIGINT'), { code: null, signal: 'SIGINT' });
      assert.deepEqual(accessIds(server), [...ids, 'twice-6']);
      assert.ok(server.lines.seen.some((line) => line.includes('"msg":"second signal: exiting without waiting for the requests in flight"')));
      assert.ok(!server.lines.seen.some((line) => line.includes('"msg":"stopped"')));
    });
  },
  [sqliteFileBackend, postgres],
);
