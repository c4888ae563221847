// `mfx serve`'s own settings, as a user runs it: the database it prints, the
// listen address, log level and format, the cursor secret; each from its flag
// and from its variable (the flag winning), and each refused when unreadable.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, it } from 'node:test';
import { usage } from '../../runtime/src/cli/args.js';
import { cliSuite, runMfx, type Running, servingUrl } from '../support/cli.js';
import { sqliteFileBackend } from '../support/backends.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';
import { eachBackend, postgres } from '../support/suite.js';

const SECRET = 'a cursor secret shared by replicas';

eachBackend(
  'mfx serve settings',
  (backend) => {
    let manifest: string;
    const cli = cliSuite(backend);
    const serve = (args: string[], env: Record<string, string> = {}) => cli.start(['serve', '--manifest', manifest, '--port', '0', ...args], { env });
    const database = () => cli.database();
    before(async () => {
      manifest = await fixtureManifestDir('query');
    });

    it('prints the database beside the listening URL, a password redacted', async () => {
      const db = await database();
      // PostgreSQL here trusts loopback connections, so the password is only there to be hidden.
      const url = db.url.replace('postgres://postgres@', 'postgres://postgres:hunter2-secret@');
      const server = serve(['--db', url]);
      const line = await server.line(/^mfx serving /);
      const shown = backend.name === 'postgres' ? url.replace(':hunter2-secret@', ':***@') : db.url;
      assert.match(line, /^mfx serving http:\/\/localhost:\d+\/api \(database (.+)\)$/);
      assert.equal(line.slice(line.indexOf('(database ') + '(database '.length, -1), shown);
      assert.equal((await request(`${await servingUrl(server)}/docs`, 'GET')).status, 200);
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
      assert.doesNotMatch(server.output(), /hunter2/);
    });

    it('--host, or HOST under it, is the address it listens on and prints', async () => {
      const db = await database();
      const flagged = serve(['--db', db.url, '--host', '127.0.0.1'], { HOST: 'localhost' });
      const fromEnv = serve(['--db', db.url], { HOST: '127.0.0.1' });
      for (const server of [flagged, fromEnv]) {
        const url = await servingUrl(server);
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/api$/);
        assert.equal((await request(`${url}/docs`, 'GET')).status, 200);
        // Bound to the IPv4 loopback only: the IPv6 one refuses the port.
        const port = Number(new URL(url).port);
        const refused = await new Promise<string>((resolve) => connect({ host: '::1', port }).once('error', (error: NodeJS.ErrnoException) => resolve(error.code!)).once('connect', () => resolve('connected')));
        assert.equal(refused, 'ECONNREFUSED');
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
      }
    });

    it('--log-format pretty (or LOG_FORMAT) writes readable lines; json (the default) one object a line', async () => {
      const db = await database();
      const pretty = serve(['--db', db.url, '--log-format', 'pretty'], { LOG_FORMAT: 'json' });
      const prettyEnv = serve(['--db', db.url], { LOG_FORMAT: 'pretty' });
      const json = serve(['--db', db.url]);
      for (const server of [pretty, prettyEnv, json]) {
        assert.equal((await request(`${await servingUrl(server)}/docs?limit=1`, 'GET')).status, 200);
      }
      for (const server of [pretty, prettyEnv]) {
        const access = await server.line(/ GET \/api\/docs /);
        assert.match(access, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/api\/docs 200 [\d.]+ms requestId=[\w-]+ model=Doc op=list remoteAddress=\S+$/);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        assert.match(server.output(), /\n\d\d:\d\d:\d\d\.\d{3} INFO {2}stopped\n/);
        assert.doesNotMatch(server.output(), /^\{/m);
      }
      const access = await json.logLine({ msg: 'request', method: 'GET', path: '/api/docs' });
      assert.equal(access.status, 200);
      assert.equal(access.level, 30);
      assert.deepEqual(await json.stop(), { code: 0, signal: null });
    });

    it('--log-level (or LOG_LEVEL) leaves out the quieter lines', async () => {
      const db = await database();
      const quiet = serve(['--db', db.url, '--log-level', 'warn'], { LOG_LEVEL: 'info' });
      const quietEnv = serve(['--db', db.url], { LOG_LEVEL: 'error' });
      const loud = serve(['--db', db.url, '--log-level', 'info'], { LOG_LEVEL: 'error' });
      for (const server of [quiet, quietEnv, loud]) {
        assert.equal((await request(`${await servingUrl(server)}/docs`, 'GET')).status, 200);
      }
      await loud.logLine({ msg: 'request', path: '/api/docs' });
      for (const server of [quiet, quietEnv, loud]) assert.deepEqual(await server.stop(), { code: 0, signal: null });
      // Every line is out once the process has exited. At warn, the one warning of this fixture (its
      // model Doc takes /docs from the documentation page) and nothing quieter; at error, only the URL.
      const logged = (server: Running) => server.logs() as { level: number; msg: string }[];
      assert.deepEqual(
        logged(quiet).map((line) => [line.level, line.msg]),
        [[40, 'documentation page not mounted: another route answers its path; rename that route or set documentation.page: false']],
      );
      assert.deepEqual(quietEnv.output().trim().split('\n'), [await quietEnv.line(/^mfx serving /)]);
      assert.ok(logged(loud).some((line) => line.level === 30 && line.msg === 'stopped'));
    });

    it('--cursor-secret (or CURSOR_SECRET): replicas sharing it accept each other\'s cursors; another secret refuses them', async () => {
      const db = await database();
      const first = serve(['--db', db.url, '--cursor-secret', SECRET], { CURSOR_SECRET: 'the flag wins over this one' });
      const firstUrl = await servingUrl(first);
      const replica = serve(['--db', db.url], { CURSOR_SECRET: SECRET });
      const stranger = serve(['--db', db.url]);
      for (let i = 0; i < 3; i++) assert.equal((await request(`${firstUrl}/docs`, 'POST', { body: { title: `doc ${i}`, code: `c${i}`, size: i } })).status, 201);
      const page = await request(`${firstUrl}/docs?cursor=&limit=2`, 'GET');
      assert.equal(page.status, 200);
      const cursor = encodeURIComponent(page.body.meta.next_cursor);
      const next = await request(`${await servingUrl(replica)}/docs?cursor=${cursor}&limit=2`, 'GET');
      assert.equal(next.status, 200);
      assert.deepEqual(next.body.data.map((d: { title: string }) => d.title), ['doc 2']);
      const refused = await request(`${await servingUrl(stranger)}/docs?cursor=${cursor}&limit=2`, 'GET');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, {
        error: { code: 'INVALID_QUERY', message: 'cursor is not valid: pass meta.next_cursor of the previous page unchanged, or an empty cursor for the first page' },
      });
      for (const server of [first, replica, stranger]) assert.deepEqual(await server.stop(), { code: 0, signal: null });
      assert.doesNotMatch(first.output() + replica.output(), new RegExp(SECRET));
    });

    it('runs the scheduled-transition runner: --scheduler-interval sets how often, --no-scheduler leaves it out', async () => {
      const scheduled = await fixtureManifestDir('scheduled');
      const on = cli.start(['serve', '--manifest', scheduled, '--port', '0', '--db', (await database()).url, '--scheduler-interval', '50ms']);
      assert.equal((await on.logLine({ msg: 'scheduled transitions runner started' })).intervalMs, 50);
      const url = await servingUrl(on);
      const unpinAt = new Date(Date.now() - 60_000).toISOString();
      const board = (await request(`${url}/boards`, 'POST', { body: { name: 'due', pinned: true, unpinAt } })).body.data;
      assert.equal((await on.logLine({ msg: 'scheduled transitions applied' })).fieldsSet, 1);
      assert.equal((await request(`${url}/boards/${board.id}`, 'GET')).body.data.pinned, false);
      assert.deepEqual(await on.stop(), { code: 0, signal: null });

      const off = cli.start(['serve', '--manifest', scheduled, '--port', '0', '--db', (await database()).url, '--no-scheduler']);
      await off.logLine({ msg: 'listening' });
      assert.deepEqual(await off.stop(), { code: 0, signal: null });
      assert.deepEqual((off.logs() as { msg: string }[]).filter((line) => line.msg.startsWith('scheduled')), []);
    });

    it('unreadable values are refused naming the flag (exit 2, then the usage) or the variable (exit 1); nothing is opened', async () => {
      const db = await database();
      const refusals: [string[], Record<string, string>, number, string][] = [
        [['--log-level', 'loud'], {}, 2, 'mfx serve: flag --log-level="loud" must be one of debug, info, warn, error, silent'],
        [['--log-format=xml'], {}, 2, 'mfx serve: flag --log-format="xml" must be one of json, pretty'],
        [['--host='], {}, 2, 'mfx serve: flag --host="" must be a host name or an address such as 127.0.0.1 or ::'],
        [['--cursor-secret', 'hunter2'], {}, 2, 'mfx serve: flag --cursor-secret=*** must be at least 16 characters; use 32 random bytes, e.g. `openssl rand -base64 32`'],
        [[], { LOG_FORMAT: 'xml' }, 1, 'mfx: environment variable LOG_FORMAT="xml" must be one of json, pretty'],
        [[], { LOG_LEVEL: 'loud' }, 1, 'mfx: environment variable LOG_LEVEL="loud" must be one of debug, info, warn, error, silent'],
        [[], { CURSOR_SECRET: 'hunter2' }, 1, 'mfx: environment variable CURSOR_SECRET=*** must be at least 16 characters; use 32 random bytes, e.g. `openssl rand -base64 32`'],
      ];
      for (const [args, env, code, message] of refusals) {
        const run = await runMfx(['serve', '--manifest', manifest, '--db', db.url, '--port', '0', ...args], { env });
        // A usage error (exit 2) is followed by the usage; a bad variable is not one.
        assert.deepEqual(run, { code, signal: null, stdout: '', stderr: code === 2 ? `${message}\n\n${usage('serve')}` : `${message}\n` });
      }
      if (backend.name === 'sqlite-file') assert.equal(db.exists(), false);
      assert.deepEqual(await db.tables(), []);
    });
  },
  [sqliteFileBackend, postgres],
);
