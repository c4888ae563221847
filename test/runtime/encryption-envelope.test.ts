// The encrypted stored form and the key providers (issue 17): the envelope
// round-trips, equal plaintexts differ, a tampered or relabelled envelope and
// an unknown key fail authentication, keys must be exactly 32 bytes, and
// the environment provider reads the spec's variable names; the bounds of
// the decryption cache.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { blindIndex, EnvelopeError, open, parseEnvelope, seal } from '../../runtime/src/security/encryption/envelope.js';
import { envKeyProvider, keyVariable, staticKeyProvider } from '../../runtime/src/security/encryption/keys.js';
import { PlaintextCache } from '../../runtime/src/security/encryption/plaintext-cache.js';

const key = randomBytes(32);
const other = randomBytes(32);
const keys = (id: string) => (id === 'default' ? key : id === 'pay-2026' ? other : undefined);

describe('the envelope', () => {
  it('round-trips text, including empty, multi-byte and long values, under the key id it names', () => {
    for (const text of ['', 'café ✓ 𝄞', 'x'.repeat(100_000), '4111 1111 1111 1111']) {
      const stored = seal(text, 'default', key);
      assert.match(stored, /^enc:[A-Za-z0-9+/]+=*$/);
      assert.equal(parseEnvelope(stored).keyId, 'default');
      assert.equal(open(stored, keys), text);
    }
    assert.equal(open(seal('paid', 'pay-2026', other), keys), 'paid');
  });

  it('stores two equal plaintexts differently (a fresh nonce each)', () => {
    assert.notEqual(seal('same', 'default', key), seal('same', 'default', key));
  });

  it('refuses a tampered body, a relabelled key id, an unknown key id, a foreign version and plain text', () => {
    const stored = seal('secret', 'default', key);
    const bytes = Buffer.from(stored.slice(4), 'base64');
    bytes[bytes.length - 1] ^= 1;
    assert.throws(() => open(`enc:${bytes.toString('base64')}`, keys), new EnvelopeError('the envelope fails authentication with key "default" (tampered, or encrypted with another key of that id)'));
    // The same bytes sealed under "default" but labelled "pay-2026": the key id is authenticated.
    const relabelled = Buffer.from(seal('secret', 'pay-2026', key).slice(4), 'base64');
    assert.throws(() => open(`enc:${relabelled.toString('base64')}`, keys), /fails authentication with key "pay-2026"/);
    assert.throws(() => open(seal('secret', 'retired', key), keys), new EnvelopeError('no key with id "retired"'));
    const foreign = Buffer.from(stored.slice(4), 'base64');
    foreign[0] = 9;
    assert.throws(() => open(`enc:${foreign.toString('base64')}`, keys), new EnvelopeError('unknown envelope version 9'));
    assert.throws(() => open('enc:AQ==', keys), new EnvelopeError('the envelope is truncated'));
    assert.throws(() => open('plain text', keys), /not an encrypted envelope/);
  });

  it('blind index: equal plaintexts match, different ones and other keys do not', () => {
    const index = randomBytes(32);
    assert.equal(blindIndex('a@example.com', index), blindIndex('a@example.com', index));
    assert.notEqual(blindIndex('a@example.com', index), blindIndex('b@example.com', index));
    assert.notEqual(blindIndex('a@example.com', index), blindIndex('a@example.com', randomBytes(32)));
    assert.match(blindIndex('x', index), /^[0-9a-f]{64}$/);
  });
});

describe('key providers', () => {
  const b64 = (bytes: Buffer) => bytes.toString('base64');

  it('envKeyProvider: key id default from MFX_KEY_DEFAULT, pay-2026 from MFX_KEY_PAY_2026; other prefixes ignored', async () => {
    assert.equal(keyVariable('MFX_KEY', 'pay-2026'), 'MFX_KEY_PAY_2026');
    const provider = envKeyProvider({ env: { MFX_KEY_DEFAULT: b64(key), MFX_KEY_PAY_2026: b64(other), MFX_KEYS: 'not mine', PATH: '/bin' } });
    assert.deepEqual(await provider.key('default'), key);
    assert.deepEqual(await provider.key('pay-2026'), other);
    assert.equal(await provider.key('missing'), undefined);
    assert.equal(provider.indexKeyId, 'index');
    assert.deepEqual([...(provider.keyIds?.() ?? [])].sort(), ['default', 'pay-2026']);
    const custom = envKeyProvider({ prefix: 'APP_KEY', indexKeyId: 'blind', env: { APP_KEY_BLIND: b64(other) } });
    assert.equal(custom.indexKeyId, 'blind');
    assert.deepEqual(await custom.key('blind'), other);
  });

  it('a key that is not base64 of exactly 32 bytes is a startup error naming the variable, never the value', () => {
    assert.throws(() => envKeyProvider({ env: { MFX_KEY_DEFAULT: b64(randomBytes(16)) } }), {
      name: 'ConfigError',
      message: 'mfx: environment variable MFX_KEY_DEFAULT holds 16 bytes; an encryption key is exactly 32 bytes (openssl rand -base64 32)',
    });
    assert.throws(() => envKeyProvider({ env: { MFX_KEY_PAY_2026: 'hunter2 is my key!' } }), {
      name: 'ConfigError',
      message: 'mfx: environment variable MFX_KEY_PAY_2026 is not base64: give a 32-byte key encoded in base64 (openssl rand -base64 32)',
    });
    assert.throws(() => staticKeyProvider({ keys: { default: randomBytes(31) } }), /staticKeyProvider key "default" holds 31 bytes/);
  });

  it('staticKeyProvider: base64 strings or bytes by id', async () => {
    const provider = staticKeyProvider({ keys: { default: b64(key), index: other } });
    assert.deepEqual(await provider.key('default'), key);
    assert.deepEqual(await provider.key('index'), other);
    assert.deepEqual(provider.keyIds?.(), ['default', 'index']);
  });
});

describe('the decryption cache', () => {
  const entry = (envelope: string, plaintext: string) => 2 * (envelope.length + plaintext.length) + 96;

  it('keeps what it is given up to its budget, evicting the oldest first, and never a value over 1/16 of it', () => {
    const one = entry('enc:0001', 'value 1');
    const cache = new PlaintextCache(one * 16);
    for (let i = 1; i <= 16; i++) cache.set(`enc:${String(i).padStart(4, '0')}`, `value ${i % 10}`);
    assert.equal(cache.size.entries, 16);
    assert.ok(cache.size.bytes <= one * 16);
    cache.set('enc:0017', 'value 7');
    assert.equal(cache.get('enc:0001'), undefined, 'the oldest went first');
    assert.equal(cache.get('enc:0002'), 'value 2');
    assert.equal(cache.get('enc:0017'), 'value 7');
    assert.ok(cache.size.bytes <= one * 16);
    const big = 'x'.repeat(one);
    cache.set('enc:big', big);
    assert.equal(cache.get('enc:big'), undefined, 'a value over 1/16 of the budget is not kept');
    assert.equal(cache.size.entries, 16);
  });

  it('answers a hit only for the whole envelope text: another text in the same slot is a miss and displaces nothing', () => {
    const cache = new PlaintextCache(1 << 20);
    const tail = 'Qm9uam91cg==';
    cache.set(`enc:AQdkZWZhdWx0${tail}`, 'kept');
    // The slot is read from the last characters, which these share: the earlier ones differ.
    assert.equal(cache.get(`enc:AQdkZWZhdWx1${tail}`), undefined, 'a tampered envelope sharing the slot');
    cache.set(`enc:AQdkZWZhdWx1${tail}`, 'other');
    assert.equal(cache.get(`enc:AQdkZWZhdWx0${tail}`), 'kept');
    assert.equal(cache.get(`enc:AQdkZWZhdWx1${tail}`), undefined, 'not kept: the slot is taken');
    assert.equal(cache.size.entries, 1);
  });
});
