// Bearer JWT edge cases, one row each: every bad token is 401 UNAUTHORIZED
// with a message saying what is wrong; good tokens pass.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { bearer } from '@mfx/runtime';
import { SECRET, b64, ec, rsa } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const now = () => Math.floor(Date.now() / 1000);
const hs = (claims: object, options: jwt.SignOptions = {}) => jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api', ...claims }, SECRET, { algorithm: 'HS256', ...options });
const unsigned = (claims: object) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', iss: 'issuer-a', aud: 'api', ...claims })}.`;
const MALFORMED = 'the bearer token is malformed: expected three base64url segments header.payload.signature';

interface Row {
  name: string;
  /** Which server: hs (secret), rs (RSA public key), es (EC public key). */
  server: 'hs' | 'rs' | 'es';
  header: () => string;
  status: number;
  message?: string;
}

const rows: Row[] = [
  { name: 'a valid HS256 token', server: 'hs', header: () => `Bearer ${hs({})}`, status: 200 },
  { name: 'HS384 and HS512 with the secret', server: 'hs', header: () => `Bearer ${hs({}, { algorithm: 'HS512' })}`, status: 200 },
  { name: 'a valid RS256 token', server: 'rs', header: () => `Bearer ${jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api' }, rsa.privateKey, { algorithm: 'RS256' })}`, status: 200 },
  { name: 'a valid ES256 token', server: 'es', header: () => `Bearer ${jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api' }, ec.privateKey, { algorithm: 'ES256' })}`, status: 200 },
  { name: 'alg none (unsigned)', server: 'hs', header: () => `Bearer ${unsigned({})}`, status: 401, message: 'the bearer token is signed with an algorithm this server does not accept' },
  { name: 'alg none against a public key', server: 'rs', header: () => `Bearer ${unsigned({})}`, status: 401, message: 'the bearer token is signed with an algorithm this server does not accept' },
  {
    // The classic confusion: HMAC-sign with the RSA public key as the secret.
    name: 'HS256 signed with the RSA public key (HS/RS confusion)',
    server: 'rs',
    header: () => {
      const head = b64({ alg: 'HS256', typ: 'JWT' });
      const body = b64({ sub: 'u1', iss: 'issuer-a', aud: 'api' });
      const signature = require_hmac(`${head}.${body}`, rsa.publicKey);
      return `Bearer ${head}.${body}.${signature}`;
    },
    status: 401,
    message: 'the bearer token is signed with an algorithm this server does not accept',
  },
  { name: 'RS256 token on an HS server', server: 'hs', header: () => `Bearer ${jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api' }, rsa.privateKey, { algorithm: 'RS256' })}`, status: 401, message: 'the bearer token is signed with an algorithm this server does not accept' },
  { name: 'ES256 token on an RSA server', server: 'rs', header: () => `Bearer ${jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api' }, ec.privateKey, { algorithm: 'ES256' })}`, status: 401, message: 'the bearer token is signed with an algorithm this server does not accept' },
  { name: 'a wrong secret', server: 'hs', header: () => `Bearer ${jwt.sign({ sub: 'u1', iss: 'issuer-a', aud: 'api' }, 'another-secret-0123456789abcdef0123', { algorithm: 'HS256' })}`, status: 401, message: 'the bearer token signature is invalid' },
  { name: 'a tampered payload', server: 'hs', header: () => { const [h, , s] = hs({}).split('.'); return `Bearer ${h}.${b64({ sub: 'admin', iss: 'issuer-a', aud: 'api' })}.${s}`; }, status: 401, message: 'the bearer token signature is invalid' },
  { name: 'expired (exp in the past)', server: 'hs', header: () => `Bearer ${hs({ exp: now() - 60 })}`, status: 401 },
  { name: 'not yet valid (nbf in the future)', server: 'hs', header: () => `Bearer ${hs({ nbf: now() + 3600 })}`, status: 401 },
  { name: 'a wrong issuer', server: 'hs', header: () => `Bearer ${hs({ iss: 'issuer-b' })}`, status: 401, message: 'the bearer token has the wrong issuer' },
  { name: 'a missing issuer', server: 'hs', header: () => `Bearer ${jwt.sign({ sub: 'u1', aud: 'api' }, SECRET)}`, status: 401, message: 'the bearer token has the wrong issuer' },
  { name: 'a wrong audience', server: 'hs', header: () => `Bearer ${hs({ aud: 'other-api' })}`, status: 401, message: 'the bearer token has the wrong audience' },
  { name: 'two segments', server: 'hs', header: () => `Bearer ${hs({}).split('.').slice(0, 2).join('.')}`, status: 401, message: MALFORMED },
  { name: 'four segments', server: 'hs', header: () => `Bearer ${hs({})}.extra`, status: 401, message: MALFORMED },
  { name: 'a header that is not JSON', server: 'hs', header: () => { const [, p, s] = hs({}).split('.'); return `Bearer ${b64('not json')}.${p}.${s}`; }, status: 401, message: MALFORMED },
  { name: 'a payload that is not JSON', server: 'hs', header: () => { const [h, , s] = hs({}).split('.'); return `Bearer ${h}.${b64('{oops')}.${s}`; }, status: 401 },
  { name: 'an empty signature', server: 'hs', header: () => { const [h, p] = hs({}).split('.'); return `Bearer ${h}.${p}.`; }, status: 401 },
  { name: 'garbage', server: 'hs', header: () => 'Bearer %%%', status: 401, message: MALFORMED },
  { name: 'another scheme', server: 'hs', header: () => `Basic ${b64('user:pass')}`, status: 401, message: 'the Authorization header must be "Bearer <token>"' },
  { name: 'Bearer with no token', server: 'hs', header: () => 'Bearer ', status: 401, message: 'the Authorization header must be "Bearer <token>"' },
];

function require_hmac(input: string, key: string): string {
  return createHmac('sha256', key).update(input).digest('base64url');
}

eachBackend('bearer JWT edge cases', (backend) => {
  const auth = { hs: bearer({ secret: SECRET, issuer: 'issuer-a', audience: 'api' }), rs: bearer({ publicKey: rsa.publicKey, issuer: 'issuer-a', audience: 'api' }), es: bearer({ publicKey: ec.publicKey, issuer: 'issuer-a', audience: 'api' }) };
  const servers = {
    hs: useServer(backend, { setup: (app) => void app.use('auth', auth.hs, { models: ['Tag'], ops: ['create'] }) }),
    rs: useServer(backend, { setup: (app) => void app.use('auth', auth.rs, { models: ['Tag'], ops: ['create'] }) }),
    es: useServer(backend, { setup: (app) => void app.use('auth', auth.es, { models: ['Tag'], ops: ['create'] }) }),
  };

  for (const row of rows) {
    it(`${row.name} → ${row.status}`, async () => {
      const total = async () => (await servers[row.server].request('GET', '/tags')).body.meta.total as number;
      const before = await total();
      const res = await servers[row.server].request('POST', '/tags', { headers: { authorization: row.header() }, body: { name: `t-${Math.random()}` } });
      assert.equal(res.status, row.status === 200 ? 201 : row.status, res.text);
      if (row.status === 401) {
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
        if (row.message) assert.equal(res.body.error.message, row.message);
        assert.equal(await total(), before, 'nothing written by a refused token');
      }
    });
  }
});

describe('bearer key and algorithm rules', () => {
  it('derives algorithms from the key type and refuses confusing configurations', () => {
    assert.throws(() => bearer({ secret: rsa.publicKey }), /bearer\(\{ secret \}\) got a PEM key; pass a public key as publicKey/);
    assert.throws(() => bearer({ publicKey: rsa.privateKey }), /got a private key|is not a readable public key/);
    assert.throws(() => bearer({ publicKey: 'not a key' }), /is not a readable public key/);
    assert.throws(() => bearer({ publicKey: rsa.publicKey, algorithms: ['HS256'] }), /algorithms HS256 do not fit the key; this key allows RS256/);
    assert.throws(() => bearer({ publicKey: ec.publicKey, algorithms: ['ES384'] }), /this key allows ES256/);
    assert.throws(() => bearer({ secret: SECRET, publicKey: rsa.publicKey }), /either secret or publicKey, not both/);
  });

  it('says when a token expired or is not valid yet', async () => {
    const server = await startServer(sqlite, { setup: (app) => void app.use('auth', bearer({ secret: SECRET }), { models: ['Tag'] }) });
    try {
      const expired = await server.request('GET', '/tags', { headers: { authorization: `Bearer ${jwt.sign({ exp: now() - 10 }, SECRET)}` } });
      assert.match(expired.body.error.message, /^the bearer token expired at \d{4}-\d{2}-\d{2}T.*Z; sign in again$/);
      const early = await server.request('GET', '/tags', { headers: { authorization: `Bearer ${jwt.sign({ nbf: now() + 600 }, SECRET)}` } });
      assert.match(early.body.error.message, /^the bearer token is not valid before \d{4}-/);
    } finally {
      await server.close();
    }
  });
});
