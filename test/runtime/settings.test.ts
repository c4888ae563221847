// The settings table: one row per setting drives its default, its
// environment variable, its command-line flag and the help text, and can
// never drift from the ServerConfig interface.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { createServer, envToConfig, loadEnv } from '@mfx/runtime';
import { readCommandLine, usage } from '../../runtime/src/cli/args.js';
import { settingRows, settings } from '../../runtime/src/config/settings.js';
import { root, runMfx } from '../support/cli.js';

/** The property names of an interface, read from its source file. */
function interfaceKeys(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022);
  const declaration = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  assert.ok(declaration, `${name} in ${file}`);
  return declaration.members.map((m) => (m.name as ts.Identifier).text);
}

describe('the settings table', () => {
  it('has exactly one server row per ServerConfig key, and one command row per CommandOptions key', () => {
    const server = settingRows.filter(([, s]) => s.scope === 'server').map(([key]) => key);
    const command = settingRows.filter(([, s]) => s.scope === 'command').map(([key]) => key);
    assert.deepEqual([...server].sort(), interfaceKeys('runtime/src/config/config.ts', 'ServerConfig').sort());
    assert.deepEqual([...command].sort(), interfaceKeys('runtime/src/config/settings.ts', 'CommandOptions').sort());
  });

  it('loadEnv binds exactly the variables the spec allows (and STRICT_MIGRATIONS), each to one EnvConfig field; the others only the commands read', () => {
    const bound = settingRows.flatMap(([, s]) => (s.env?.as ? [s.env] : []));
    assert.deepEqual(bound.map((b) => b.name).sort(), ['DB_READ_URL', 'DB_WRITE_URL', 'HEALTH_CHECK_DB', 'PORT', 'QUERY_TIMEOUT_MS', 'SERVICE_NAME', 'SHUTDOWN_TIMEOUT_S', 'STRICT_MIGRATIONS']);
    assert.deepEqual(bound.map((b) => b.as).sort(), interfaceKeys('runtime/src/config/env.ts', 'EnvConfig').sort());
    const commandOnly = settingRows.flatMap(([, s]) => (s.env && !s.env.as ? [s.env.name] : []));
    assert.deepEqual(commandOnly.sort(), ['CURSOR_SECRET', 'HOST', 'LOG_FORMAT', 'LOG_LEVEL', 'MAX_CONCURRENT_EXPORTS', 'SCHEDULER_INTERVAL']);
    const everything = { PORT: '1', HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOG_FORMAT: 'pretty', CURSOR_SECRET: 'sixteen characters' };
    assert.deepEqual(loadEnv('', everything), { port: 1 });
    assert.deepEqual(envToConfig(loadEnv('', everything)), { port: 1 });
  });

  it('gives every row a doc line, and every flag a command that reads it', () => {
    for (const [key, setting] of settingRows) {
      assert.ok(setting.doc.length > 10, key);
      if (setting.flag || (setting.env && setting.scope === 'command')) assert.ok(setting.commands?.length, `${key} is read by no command`);
    }
  });
});

describe('one row drives default, environment and flag', () => {
  it('port: default 8080, PORT under --port', () => {
    assert.equal(settings.port.default, 8080);
    assert.equal(createServer({ handleSignals: false }).config.port, 8080);
    assert.deepEqual(envToConfig(loadEnv('', { PORT: '9090' })), { port: 9090 });
    assert.equal(readCommandLine('serve', [], {}).server.port, undefined, 'unset: resolveConfig fills the default');
    assert.equal(readCommandLine('serve', [], { PORT: '9090' }).server.port, 9090);
    assert.equal(readCommandLine('serve', ['--port', '7070'], { PORT: '9090' }).server.port, 7070);
    assert.equal(readCommandLine('serve', ['--port=0'], { PORT: '9090' }).server.port, 0);
  });

  it('strictMigrations: default off, STRICT_MIGRATIONS under --strict-migrations, for serve only; migrate has its own --strict and --plan', () => {
    assert.equal(createServer({ handleSignals: false }).config.strictMigrations, false);
    assert.equal(readCommandLine('serve', [], { STRICT_MIGRATIONS: 'yes' }).server.strictMigrations, true);
    assert.equal(readCommandLine('serve', ['--strict-migrations'], {}).server.strictMigrations, true);
    assert.throws(() => readCommandLine('serve', [], { STRICT_MIGRATIONS: 'maybe' }), { message: 'mfx: environment variable STRICT_MIGRATIONS="maybe" must be true or false (also 1/0, yes/no, on/off)' });
    assert.deepEqual(readCommandLine('migrate', ['--plan', '--strict'], { STRICT_MIGRATIONS: 'no' }).options, { manifest: '.mfx', dbWriteUrl: 'sqlite:./mfx.db', app: undefined, plan: true, strict: true });
    assert.equal(readCommandLine('migrate', [], { STRICT_MIGRATIONS: 'yes' }).options.strict, false, 'the variable is the server\'s');
  });

  it('the database URL: default sqlite:./mfx.db, DB_WRITE_URL under --db, for serve and migrate', () => {
    for (const command of ['serve', 'migrate'] as const) {
      assert.equal(readCommandLine(command, [], {}).options.dbWriteUrl, 'sqlite:./mfx.db');
      assert.equal(readCommandLine(command, [], { DB_WRITE_URL: 'sqlite::memory:' }).options.dbWriteUrl, 'sqlite::memory:');
      assert.equal(readCommandLine(command, ['--db', 'sqlite:./flag.db'], { DB_WRITE_URL: 'sqlite::memory:' }).options.dbWriteUrl, 'sqlite:./flag.db');
    }
    assert.equal(readCommandLine('serve', [], { DB_READ_URL: 'postgres://r@h/db' }).options.dbReadUrl, 'postgres://r@h/db');
  });

  it('durations in the variable\'s unit become the setting\'s: SHUTDOWN_TIMEOUT_S seconds, QUERY_TIMEOUT_MS milliseconds', () => {
    const { server } = readCommandLine('serve', [], { SHUTDOWN_TIMEOUT_S: '10', QUERY_TIMEOUT_MS: '1500', SERVICE_NAME: 'blog', HEALTH_CHECK_DB: 'yes' });
    assert.deepEqual(server, { shutdownTimeout: 10_000, queryTimeout: 1500, serviceName: 'blog', healthCheckDB: true });
    const app = createServer({ ...server, handleSignals: false });
    assert.equal(app.config.shutdownTimeoutMs, 10_000);
    assert.equal(app.config.queryTimeoutMs, 1500);
  });

  it('switches and command defaults: --no-docs, --production', () => {
    const defaults = { manifest: '.mfx', dbWriteUrl: 'sqlite:./mfx.db', dbReadUrl: undefined, app: undefined, docs: true, production: false, admin: false, adminUnauthenticated: false, logLevel: 'info', logFormat: 'json', watch: false, scheduler: true, schedulerInterval: undefined };
    assert.deepEqual(readCommandLine('serve', [], {}).options, defaults);
    const flagged = readCommandLine('serve', ['--no-docs', '--production', '--manifest', 'out', '--app=app.ts', '--prefix', '/v1', '--watch'], {});
    assert.deepEqual(flagged.options, { ...defaults, manifest: 'out', app: 'app.ts', docs: false, production: true, watch: true });
    assert.deepEqual(flagged.server, { pathPrefix: '/v1' });
  });

  it('--decryption-cache sets the bytes of the decryption cache (0 turns it off)', () => {
    assert.equal(readCommandLine('serve', [], {}).server.decryptionCache, undefined);
    assert.equal(readCommandLine('serve', ['--decryption-cache', '0'], {}).server.decryptionCache, 0);
    assert.equal(readCommandLine('serve', ['--decryption-cache', '1048576'], {}).server.decryptionCache, 1048576);
  });

  it('the scheduled-transition runner: on by default, --no-scheduler turns it off, --scheduler-interval (or SCHEDULER_INTERVAL) sets how often', () => {
    assert.equal(readCommandLine('serve', ['--no-scheduler'], {}).options.scheduler, false);
    assert.equal(readCommandLine('serve', ['--scheduler-interval', '30s'], { SCHEDULER_INTERVAL: '5m' }).options.schedulerInterval, '30s');
    assert.equal(readCommandLine('serve', [], { SCHEDULER_INTERVAL: '5m' }).options.schedulerInterval, '5m');
    assert.throws(() => readCommandLine('serve', ['--scheduler-interval', 'often'], {}), { message: 'mfx serve: flag --scheduler-interval="often" must be a duration such as 30s, 1m or 2h' });
    assert.throws(() => readCommandLine('serve', ['--scheduler-interval', '0s'], {}), { message: 'mfx serve: flag --scheduler-interval="0s" must be a duration such as 30s, 1m or 2h' });
  });

  it('X-Read-Primary is honoured by default; --no-read-primary-header turns it off', () => {
    assert.equal(createServer({ handleSignals: false }).config.readPrimaryHeader, true);
    const { server } = readCommandLine('serve', ['--no-read-primary-header'], {});
    assert.deepEqual(server, { readPrimaryHeader: false });
    assert.equal(createServer({ ...server, handleSignals: false }).config.readPrimaryHeader, false);
  });

  it('reads only the settings of the command: openapi ignores the environment, migrate takes no --port', () => {
    assert.deepEqual(readCommandLine('openapi', ['--prefix', '/v2'], { PORT: 'eighty', SERVICE_NAME: 'x' }).server, { pathPrefix: '/v2' });
    assert.deepEqual(readCommandLine('migrate', [], { PORT: '9090' }).server, {});
  });

  it('refuses unknown flags naming the known ones, and bad values naming the flag or variable', () => {
    assert.throws(() => readCommandLine('migrate', ['--port', '1'], {}), { message: 'mfx migrate: unknown flag --port (known: --manifest, --db, --app, --plan, --strict)' });
    assert.throws(() => readCommandLine('serve', ['--port', 'eighty'], {}), { message: 'mfx serve: flag --port="eighty" must be a whole number from 0 to 65535' });
    assert.throws(() => readCommandLine('serve', ['--port'], {}), { message: 'mfx serve: --port needs a value (N)' });
    assert.throws(() => readCommandLine('serve', ['--no-docs=1'], {}), { message: 'mfx serve: --no-docs takes no value' });
    assert.throws(() => readCommandLine('serve', [], { PORT: '70000' }), { message: 'mfx: environment variable PORT="70000" must be a whole number from 0 to 65535' });
  });

  it('serve\'s listener, logging and cursor rows: HOST, LOG_LEVEL, LOG_FORMAT, CURSOR_SECRET under their flags', () => {
    const env = { HOST: '127.0.0.1', LOG_LEVEL: 'WARN', LOG_FORMAT: 'pretty', CURSOR_SECRET: 'from the environment' };
    const fromEnv = readCommandLine('serve', [], env);
    assert.deepEqual(fromEnv.server, { host: '127.0.0.1', cursorSecret: 'from the environment' });
    assert.equal(fromEnv.options.logLevel, 'warn');
    assert.equal(fromEnv.options.logFormat, 'pretty');
    const flagged = readCommandLine('serve', ['--host', '::1', '--log-level=error', '--log-format', 'json', '--cursor-secret', 'from the command line'], env);
    assert.deepEqual(flagged.server, { host: '::1', cursorSecret: 'from the command line' });
    assert.equal(flagged.options.logLevel, 'error');
    assert.equal(flagged.options.logFormat, 'json');
    assert.equal(createServer({ ...flagged.server, handleSignals: false }).config.host, '::1');
    for (const command of ['migrate', 'openapi'] as const) assert.throws(() => readCommandLine(command, ['--host', '::1'], {}), { name: 'UsageError', message: /unknown flag --host/ });
  });

  it('unreadable values of the new rows are refused naming the flag or variable; a secret is never repeated', () => {
    const usageError = (message: string) => ({ name: 'UsageError', message });
    assert.throws(() => readCommandLine('serve', ['--log-level', 'loud'], {}), usageError('mfx serve: flag --log-level="loud" must be one of debug, info, warn, error, silent'));
    assert.throws(() => readCommandLine('serve', ['--log-format=xml'], {}), usageError('mfx serve: flag --log-format="xml" must be one of json, pretty'));
    assert.throws(() => readCommandLine('serve', ['--host='], {}), usageError('mfx serve: flag --host="" must be a host name or an address such as 127.0.0.1 or ::'));
    assert.throws(() => readCommandLine('serve', ['--cursor-secret', 'hunter2'], {}), usageError('mfx serve: flag --cursor-secret=*** must be at least 16 characters; use 32 random bytes, e.g. `openssl rand -base64 32`'));
    assert.throws(() => readCommandLine('serve', [], { LOG_FORMAT: 'xml' }), { name: 'ConfigError', message: 'mfx: environment variable LOG_FORMAT="xml" must be one of json, pretty' });
    assert.throws(() => readCommandLine('serve', [], { CURSOR_SECRET: 'hunter2' }), { name: 'ConfigError', message: 'mfx: environment variable CURSOR_SECRET=*** must be at least 16 characters; use 32 random bytes, e.g. `openssl rand -base64 32`' });
  });

  it('an argument that is not a flag is a usage error naming it (the command prints the usage after it); --help or -h anywhere wins', () => {
    assert.throws(() => readCommandLine('migrate', ['--db', 'sqlite::memory:', 'extra'], {}), { name: 'UsageError', message: 'mfx migrate: unexpected argument "extra"' });
    assert.throws(() => readCommandLine('openapi', ['-'], {}), { name: 'UsageError', message: 'mfx openapi: unexpected argument "-"' });
    assert.throws(() => readCommandLine('serve', ['-p', '1'], {}), { name: 'UsageError', message: /^mfx serve: unknown flag -p \(known: --manifest, / });
    for (const help of ['--help', '-h']) {
      // Nothing else is read: not the unknown flag, not the argument, not the unreadable variable.
      assert.deepEqual(readCommandLine('serve', ['--bogus', 'extra', '--port', help], { PORT: 'eighty' }), { server: {}, options: {}, help: true });
    }
  });

  it('writes the help text from the rows: every flag and variable with its doc line', () => {
    const text = usage('serve');
    assert.match(
      text,
      /^usage: mfx serve \[--manifest DIR\] \[--db URL\] \[--port N\] \[--host ADDR\] \[--log-level LEVEL\] \[--log-format json\|pretty\] \[--cursor-secret SECRET\] \[--watch\] \[--prefix \/api\] \[--app FILE\.ts\] \[--no-docs\] \[--production\] \[--admin\] \[--admin-unauthenticated\] \[--strict-migrations\] \[--no-read-primary-header\] \[--max-concurrent-exports N\] \[--files DIR\] \[--decryption-cache BYTES\] \[--no-scheduler\] \[--scheduler-interval DURATION\]\n/,
    );
    assert.match(text, /\n {2}--port N +listen port; 0 picks a free one \(default 8080; env PORT\)\n/);
    assert.match(text, /\n {2}SHUTDOWN_TIMEOUT_S +graceful shutdown budget\n/);
    assert.doesNotMatch(usage('openapi'), /environment|PORT/);
    assert.doesNotMatch(usage('migrate'), /SERVICE_NAME/);
  });
});

describe('the mfx commands read the table', () => {
  it('--help prints the command\'s usage and exits 0', async () => {
    const run = await runMfx(['migrate', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, usage('migrate'));
  });

  it('a flag the command does not read is refused in one line naming the known ones, then the usage', async () => {
    const run = await runMfx(['migrate', '--port', '1']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `mfx migrate: unknown flag --port (known: --manifest, --db, --app, --plan, --strict)\n\n${usage('migrate')}`);
  });
});
