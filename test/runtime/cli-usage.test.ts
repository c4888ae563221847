// The mfx commands' usage behaviour, run as a user runs them: --help and -h
// do nothing else, arguments a command does not take are refused before it
// does anything, and a reader that goes away (`| head -1`) ends a command
// quietly.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { usage } from '../../runtime/src/cli/args.js';
import { cliDatabase, root, runMfx } from '../support/cli.js';
import { sqliteFileBackend } from '../support/backends.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { eachBackend, postgres } from '../support/suite.js';

/** A port this test holds: a command that tried to listen on it would fail with EADDRINUSE. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** An empty working directory: the default manifest (.mfx) and database (./mfx.db) would be here. */
function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-cli-usage-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

describe('mfx <command> --help and -h', () => {
  let held: { port: number; server: Server };
  let cwd: string;
  before(async () => {
    held = await holdPort();
    cwd = emptyDir();
  });
  after(() => {
    held.server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  for (const command of ['serve', 'migrate', 'openapi', 'diff', 'rotate-keys'] as const) {
    for (const flag of ['--help', '-h']) {
      it(`mfx ${command} ${flag} prints the usage on stdout and exits 0 without doing anything`, async () => {
        const args = command === 'serve' ? ['--port', String(held.port)] : [];
        const run = await runMfx([command, flag, ...args], { cwd });
        assert.deepEqual(run, { code: 0, signal: null, stdout: usage(command), stderr: '' });
        // No manifest was read (there is none here), no default database was created, and nothing
        // listened: the held port would have failed the start, and a server never exits on its own.
        assert.deepEqual(readdirSync(cwd), ['node_modules']);
      });
    }
  }

  // Issue 20, item 5: every command answers a flag it does not know, or one missing its value, alike.
  const commands = ['serve', 'migrate', 'openapi', 'diff', 'rotate-keys'] as const;
  for (const command of commands) {
    it(`mfx ${command} with an unknown flag: exit 2, one line naming it, then the usage, nothing done`, async () => {
      const run = await runMfx([command, '--bogus'], { cwd });
      assert.equal(run.code, 2);
      assert.equal(run.stdout, '');
      const [line, ...rest] = run.stderr.split('\n');
      assert.match(line, new RegExp(`^mfx ${command}: unknown flag --bogus \\(known: --`));
      assert.equal(rest.join('\n'), `\n${usage(command)}`);
      assert.deepEqual(readdirSync(cwd), ['node_modules']);
    });
  }

  for (const [command, flag, placeholder] of [['serve', '--port', 'N'], ['migrate', '--db', 'URL'], ['openapi', '--prefix', '/api'], ['rotate-keys', '--to', 'KEYID']] as const) {
    it(`mfx ${command} ${flag} without its value: exit 2, one line naming the flag, then the usage`, async () => {
      for (const args of [[command, flag], [command, flag, '--manifest', 'x']]) {
        const run = await runMfx(args, { cwd });
        assert.deepEqual(run, { code: 2, signal: null, stdout: '', stderr: `mfx ${command}: ${flag} needs a value (${placeholder})\n\n${usage(command)}` }, args.join(' '));
      }
      assert.deepEqual(readdirSync(cwd), ['node_modules']);
    });
  }

  it('mfx rotate-keys without --to: exit 2, the line saying so, then the usage', async () => {
    const run = await runMfx(['rotate-keys'], { cwd });
    assert.deepEqual(run, { code: 2, signal: null, stdout: '', stderr: `mfx rotate-keys: --to KEYID is required: the key id every encrypted value is re-encrypted to\n\n${usage('rotate-keys')}` });
  });

  it('the port held for these tests does fail a server that tries to listen on it', async () => {
    const manifest = await fixtureManifestDir('blog');
    const run = await runMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', String(held.port)], { cwd });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /EADDRINUSE/);
  });

  for (const flag of ['--help', '-h']) {
    it(`mfx build ${flag} prints the usage, --watch among the flags, and builds nothing`, async () => {
      const run = await runMfx(['build', flag, 'models.ts', '--out', 'out'], { cwd });
      assert.equal(run.code, 0);
      assert.equal(run.stderr, '');
      assert.match(run.stdout, /^usage: mfx build ENTRY\.ts\.\.\. \[--project tsconfig\.json\] \[--out DIR\] \[--strict\] \[--watch\]\n/);
      assert.match(run.stdout, /\n {2}--watch, -w +build again whenever a file the models come from/);
      assert.deepEqual(readdirSync(cwd), ['node_modules']);
    });
  }

  it('mfx serve --help lists the new flags and their variables', async () => {
    const run = await runMfx(['serve', '--help'], { cwd });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /\n {2}--host ADDR +listen address or host name; unset listens on all interfaces \(env HOST\)\n/);
    assert.match(run.stdout, /\n {2}--log-level LEVEL +the quietest lines logged: debug, info, warn, error, silent \(default info; env LOG_LEVEL\)\n/);
    assert.match(run.stdout, /\n {2}--log-format json\|pretty +log lines as json \(one object a line\) or pretty \(readable, for development\) \(default json; env LOG_FORMAT\)\n/);
    assert.match(run.stdout, /\n {2}--cursor-secret SECRET +secret \(16\+ characters\) that signs keyset cursors, .* \(env CURSOR_SECRET\)\n/);
    assert.match(run.stdout, /\n {2}--watch +reload when the manifest changes: migrate, then serve the new models on the same port\n/);
  });

  it('help wins over anything else on the line: an unknown flag, an extra argument, a bad variable', async () => {
    const run = await runMfx(['serve', '--bogus', 'extra', '-h', '--port', String(held.port)], { cwd, env: { PORT: 'eighty', LOG_FORMAT: 'xml' } });
    assert.deepEqual(run, { code: 0, signal: null, stdout: usage('serve'), stderr: '' });
    assert.deepEqual(readdirSync(cwd), ['node_modules']);
  });
});

eachBackend(
  'mfx commands on a database',
  (backend) => {
    let manifest: string;
    before(async () => {
      manifest = await fixtureManifestDir('blog');
    });

    it('mfx migrate -h and mfx serve --help leave the database named by --db untouched', async () => {
      const db = await cliDatabase(backend);
      try {
        for (const args of [['migrate', '-h', '--db', db.url, '--manifest', manifest], ['serve', '--manifest', manifest, '--db', db.url, '--port', '0', '--help']]) {
          const run = await runMfx(args);
          assert.deepEqual(run, { code: 0, signal: null, stdout: usage(args[0] as 'migrate' | 'serve'), stderr: '' });
        }
        if (backend.name === 'sqlite-file') assert.equal(db.exists(), false, 'no database file was created');
        assert.deepEqual(await db.tables(), []);
      } finally {
        await db.drop();
      }
    });

    it('an argument serve, migrate or openapi does not take: exit 2, one line naming it and the usage, nothing done', async () => {
      const db = await cliDatabase(backend);
      try {
        const runs = {
          migrate: await runMfx(['migrate', '--manifest', manifest, '--db', db.url, 'posts']),
          serve: await runMfx(['serve', '--manifest', manifest, '--db', db.url, '--port', '0', 'posts']),
          openapi: await runMfx(['openapi', '--manifest', manifest, 'posts']),
        };
        for (const [command, run] of Object.entries(runs) as ['migrate' | 'serve' | 'openapi', (typeof runs)['migrate']][]) {
          assert.deepEqual(run, { code: 2, signal: null, stdout: '', stderr: `mfx ${command}: unexpected argument "posts"\n\n${usage(command)}` });
        }
        if (backend.name === 'sqlite-file') assert.equal(db.exists(), false);
        assert.deepEqual(await db.tables(), []);
      } finally {
        await db.drop();
      }
    });

    it('mfx migrate whose reader went away: exit 0, nothing on stderr, the migration committed', async () => {
      const db = await cliDatabase(backend);
      try {
        const run = await runMfx(['migrate', '--manifest', manifest, '--db', db.url], { head: 0 });
        assert.deepEqual({ code: run.code, stderr: run.stderr }, { code: 0, stderr: '' });
        // (SQLite's full-text tables beside them left out.)
        assert.deepEqual((await db.tables()).filter((t) => !t.includes('_fts')), ['comments', 'companies', 'post_tags', 'posts', 'tags', 'user_history', 'users']);
      } finally {
        await db.drop();
      }
    });

    it('mfx serve whose reader went away stops as on SIGTERM: exit 0, nothing on stderr', async () => {
      const db = await cliDatabase(backend);
      try {
        const run = await runMfx(['serve', '--manifest', manifest, '--db', db.url, '--port', '0'], { head: 0 });
        assert.deepEqual({ code: run.code, signal: run.signal, stderr: run.stderr }, { code: 0, signal: null, stderr: '' });
        // It had started: the migration ran before the first line it wrote.
        assert.ok((await db.tables()).includes('posts'));
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);

describe('a reader that goes away', () => {
  it('mfx openapi | head -1: the first line, exit status 0, nothing on stderr', async () => {
    const manifest = await fixtureManifestDir('blog');
    const run = await runMfx(['openapi', '--manifest', manifest], { head: 1 });
    assert.deepEqual(run, { code: 0, signal: null, stdout: '{\n', stderr: '' });
  });

  it('mfx openapi, mfx serve --help, mfx build, mfx --help and mfx --version writing to a closed pipe: exit 0, nothing on stderr', async () => {
    const manifest = await fixtureManifestDir('blog');
    const out = mkdtempSync(join(tmpdir(), 'mfx-cli-pipe-'));
    try {
      for (const args of [
        ['openapi', '--manifest', manifest],
        ['serve', '--help'],
        ['build', join(root, 'fixtures/blog/models.ts'), '--out', out],
        ['--help'],
        ['--version'],
      ]) {
        const run = await runMfx(args, { head: 0 });
        assert.deepEqual({ code: run.code, signal: run.signal, stderr: run.stderr }, { code: 0, signal: null, stderr: '' }, args[0]);
      }
      // The build wrote its files before the line that found the pipe closed.
      assert.ok(existsSync(join(out, 'manifest.json')));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
