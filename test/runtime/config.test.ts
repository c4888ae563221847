// Configuration defaults and the environment loader.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServer, durationMs, loadEnv } from '@mfx/runtime';

describe('configuration', () => {
  it('fills the spec defaults', () => {
    const app = createServer({ handleSignals: false });
    assert.equal(app.config.port, 8080);
    assert.equal(app.config.pathPrefix, '/api');
    assert.equal(app.config.queryTimeoutMs, 0);
    assert.equal(app.config.shutdownTimeoutMs, 30_000);
    assert.equal(app.config.healthTimeoutMs, 3_000);
    assert.equal(app.config.bodyLimit, 4 * 1024 * 1024);
    assert.equal(app.config.documentation, undefined);
  });

  it('normalises the path prefix', () => {
    assert.equal(createServer({ pathPrefix: 'v1/' }).config.pathPrefix, '/v1');
    assert.equal(createServer({ pathPrefix: '' }).config.pathPrefix, '');
    assert.equal(createServer({ pathPrefix: '/' }).config.pathPrefix, '');
  });

  it('reads durations as milliseconds or unit strings and explains bad ones', () => {
    assert.equal(durationMs(250, 0, 'x'), 250);
    assert.equal(durationMs('250ms', 0, 'x'), 250);
    assert.equal(durationMs('5s', 0, 'x'), 5000);
    assert.equal(durationMs('2m', 0, 'x'), 120_000);
    assert.equal(durationMs(undefined, 7, 'x'), 7);
    assert.throws(() => createServer({ queryTimeout: 'soon' }), /queryTimeout must be a duration/);
    assert.throws(() => createServer({ shutdownTimeout: -1 }), /shutdownTimeout must be a non-negative/);
    assert.throws(() => createServer({ port: 70000 }), /port must be an integer/);
  });
});

describe('environment loader', () => {
  it('reads exactly the listed variables', () => {
    const env = {
      PORT: '9090',
      DB_WRITE_URL: 'postgres://w@h/db',
      DB_READ_URL: 'postgres://r@h/db',
      QUERY_TIMEOUT_MS: '1500',
      SHUTDOWN_TIMEOUT_S: '10',
      SERVICE_NAME: 'blog',
      HEALTH_CHECK_DB: 'true',
      PATH_PREFIX: '/ignored',
      LOG_LEVEL: 'debug',
    };
    assert.deepEqual(loadEnv('', env), {
      port: 9090,
      dbWriteUrl: 'postgres://w@h/db',
      dbReadUrl: 'postgres://r@h/db',
      queryTimeoutMs: 1500,
      shutdownTimeoutS: 10,
      serviceName: 'blog',
      healthCheckDB: true,
    });
  });

  it('joins a non-empty prefix with an underscore', () => {
    const env = { BLOG_PORT: '7000', PORT: '1', BLOG_SERVICE_NAME: 'blog' };
    assert.deepEqual(loadEnv('BLOG', env), { port: 7000, serviceName: 'blog' });
  });

  it('leaves unset and empty variables undefined so defaults apply', () => {
    assert.deepEqual(loadEnv('', {}), {});
    assert.deepEqual(loadEnv('', { PORT: '' }), {});
  });

  it('fails on a set but unreadable value, naming the variable', () => {
    assert.throws(() => loadEnv('', { PORT: 'eighty' }), /PORT="eighty" must be a whole number/);
    assert.throws(() => loadEnv('APP', { APP_QUERY_TIMEOUT_MS: '1.5' }), /APP_QUERY_TIMEOUT_MS="1.5"/);
    assert.throws(() => loadEnv('', { HEALTH_CHECK_DB: 'maybe' }), /HEALTH_CHECK_DB="maybe" must be true or false/);
    assert.throws(() => loadEnv('', { PORT: '70000' }), /PORT="70000"/);
  });
});
