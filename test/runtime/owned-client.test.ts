// ownedClient and quietClient, the one rule the Redis packages (@mfx/redis,
// @mfx/jobs-redis, @mfx/events-redis) follow for their client, on the real
// Redis at REDIS_URL (default redis://127.0.0.1:6379): a client passed in
// stays the caller's, one opened from a URL is the adapter's to close, even
// when its server is gone; and clientFromOptions, their one check of the
// `{ client } | { url }` options that choose between the two.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { clientFromOptions, ConfigError, ownedClient } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { relay } from '../support/tcp-relay.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('ownedClient', () => {
  it('uses a client it is given without opening one, and close() leaves it open', async () => {
    const given = new Redis(REDIS_URL);
    try {
      const opened: Redis[] = [];
      const held = ownedClient(given, () => {
        const client = new Redis(REDIS_URL);
        opened.push(client);
        return client;
      });
      assert.equal(held.client, given);
      assert.equal(held.owned, false);
      await held.close();
      assert.deepEqual(opened, []);
      assert.equal(await given.ping(), 'PONG');
      assert.equal(given.listenerCount('error'), 0, 'the caller decides how to hear its own client');
    } finally {
      await given.quit();
    }
  });

  it('opens its own client when given none, hears its connection errors itself, and close() quits it', async () => {
    const held = ownedClient<Redis>(undefined, () => new Redis(REDIS_URL));
    assert.equal(held.owned, true);
    assert.equal(held.client.listenerCount('error'), 1);
    assert.equal(await held.client.ping(), 'PONG');
    const ended = once(held.client, 'end');
    await held.close();
    await ended;
    assert.equal(held.client.status, 'end');
  });

  it('close() of its own client resolves when the server is gone (quit fails, the connection is dropped)', async () => {
    const gone = await relay(6379);
    await gone.close();
    const held = ownedClient<Redis>(undefined, () => new Redis(`redis://127.0.0.1:${gone.port}`, { retryStrategy: () => null, maxRetriesPerRequest: 0 }));
    // Not events.once: the refused connection's 'error' event would reject it first.
    await new Promise((resolve) => held.client.once('end', resolve));
    await held.close();
    assert.equal(held.client.status, 'end');
  });
});

describe('clientFromOptions', () => {
  it('refuses options with neither a client nor a url, naming the owner and the key the package uses', () => {
    const open = (): Redis => assert.fail('no client is opened for options it refuses');
    assert.throws(() => clientFromOptions('redisStore()', {}, open), new ConfigError('redisStore() needs { client } or { url }'));
    assert.throws(() => clientFromOptions('redisStore()', undefined, open), new ConfigError('redisStore() needs { client } or { url }'));
    assert.throws(() => clientFromOptions('redisStreamBus()', { url: '' }, open, { key: 'redis' }), new ConfigError('redisStreamBus() needs { redis } or { url }'));
  });

  it('uses the client given under its key, opening none', async () => {
    const given = new Redis(REDIS_URL);
    try {
      const held = clientFromOptions('redisStreamBus()', { redis: given, url: 'redis://127.0.0.1:1' }, (): Redis => assert.fail('a given client is used'), { key: 'redis' });
      assert.equal(held.client, given);
      assert.equal(held.owned, false);
      await held.close();
      assert.equal(await given.ping(), 'PONG');
    } finally {
      await given.quit();
    }
  });

  it('opens an owned client from the url, or from the default url of a package that has one', async () => {
    const urls: string[] = [];
    const open = (url: string): Redis => {
      urls.push(url);
      return new Redis(url);
    };
    for (const held of [clientFromOptions('redisStore()', { url: REDIS_URL }, open), clientFromOptions('redisQueue()', {}, open, { defaultUrl: REDIS_URL })]) {
      assert.equal(held.owned, true);
      assert.equal(await held.client.ping(), 'PONG');
      await held.close();
    }
    assert.deepEqual(urls, [REDIS_URL, REDIS_URL]);
  });
});
