// The blog's sign-up and login: a public create on users with a bcrypt-hashed
// writeonly password, POST /auth/login issuing a JWT, and that token at work.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { hashPassword } from '@mfx/runtime';
import setupBlog from '../../fixtures/blog/app.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse' };

eachBackend('sign-up and login', (backend) => {
  let userId: string;
  const storedPassword = async (id: string) => (await server.app.db.raw('SELECT password FROM users WHERE id = ?', [id]))[0].password as string;

  const server = useServer(backend, { setup: setupBlog });
  before(async () => {
    const res = await server.request('POST', '/users', { body: ADA });
    assert.equal(res.status, 201, res.text);
    userId = res.body.data.id;
  });

  it('signs up without a credential and never returns the password', async () => {
    const read = await server.request('GET', `/users/${userId}`);
    assert.equal(read.status, 200);
    assert.equal('password' in read.body.data, false);
    assert.ok(!read.text.includes('$2'));
  });

  it('stores a bcrypt hash, not the password', async () => {
    const stored = await storedPassword(userId);
    assert.match(stored, /^\$2[aby]\$10\$.{53}$/);
    assert.notEqual(stored, ADA.password);
  });

  it('validates the plain password before hashing it (minlen 8): 422, nothing written', async () => {
    const res = await server.request('POST', '/users', { body: { name: 'Bob', email: 'bob@example.com', password: 'short' } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(res.body.error.details.map((d: { field: string }) => d.field), ['password']);
    assert.equal((await server.request('GET', '/users')).body.meta.total, 1);
  });

  it('issues a JWT on POST /auth/login (200 data.token)', async () => {
    const res = await server.request('POST', '/auth/login', { body: { email: ADA.email, password: ADA.password } });
    assert.equal(res.status, 200);
    const claims = jwt.decode(res.body.data.token) as jwt.JwtPayload;
    assert.equal(claims.sub, userId);
    assert.deepEqual(claims.roles, ['member']);
    assert.equal(claims.iss, 'mfx-blog');
    assert.equal(res.body.data.expires_in, 3600);
  });

  it('answers 401 INVALID_CREDENTIALS for a wrong password or an unknown email', async () => {
    for (const body of [{ email: ADA.email, password: 'wrong horse' }, { email: 'nobody@example.com', password: ADA.password }]) {
      const res = await server.request('POST', '/auth/login', { body });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body.error, { code: 'INVALID_CREDENTIALS', message: 'the email or the password is wrong' });
    }
  });

  it('answers 422 when email or password is missing, and 400 for a bad body', async () => {
    const res = await server.request('POST', '/auth/login', { body: { email: ADA.email } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.error, { code: 'VALIDATION_ERROR', message: 'email and password are required', details: [{ field: 'password', message: 'is required' }] });
    const empty = await server.request('POST', '/auth/login', { raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, 'EMPTY_BODY');
  });

  it('writes with the token; without it a write is 401 and nothing is written', async () => {
    const anonymous = await server.request('POST', '/posts', { body: { title: 'Anonymous', userId } });
    assert.equal(anonymous.status, 401);
    assert.equal((await server.request('GET', '/posts')).body.meta.total, 0);
    const { token } = (await server.request('POST', '/auth/login', { body: { email: ADA.email, password: ADA.password } })).body.data;
    const created = await server.request('POST', '/posts', { headers: { authorization: `Bearer ${token}` }, body: { title: 'Notes on the Engine', userId } });
    assert.equal(created.status, 201);
  });

  it('re-hashes a changed password on update', async () => {
    const { token } = (await server.request('POST', '/auth/login', { body: { email: ADA.email, password: ADA.password } })).body.data;
    const before = await storedPassword(userId);
    const res = await server.request('PATCH', `/users/${userId}`, { headers: { authorization: `Bearer ${token}` }, body: { password: 'battery staple' } });
    assert.equal(res.status, 200);
    assert.equal('password' in res.body.data, false);
    const after = await storedPassword(userId);
    assert.notEqual(after, before);
    assert.match(after, /^\$2[aby]\$/);
    assert.equal((await server.request('POST', '/auth/login', { body: { email: ADA.email, password: 'battery staple' } })).status, 200);
    assert.equal((await server.request('POST', '/auth/login', { body: { email: ADA.email, password: ADA.password } })).status, 401);
  });
});

describe('hashPassword at startup', () => {
  it('refuses a field that is not writeonly, or missing on a scoped model', async () => {
    await assert.rejects(
      startServer(sqlite, { setup: (app) => void app.use('service', hashPassword({ field: 'email' }), { models: ['User'] }) }),
      /hashPassword\(\{ field: 'email' \}\): User.email must be writeonly so the hash never leaves the server; add @mfx writeonly/,
    );
    await assert.rejects(startServer(sqlite, { setup: (app) => void app.use('service', hashPassword({ field: 'password' }), { models: ['Post'] }) }), /is scoped to Post, which has no such field/);
    await assert.rejects(startServer(sqlite, { setup: (app) => void app.use('db', hashPassword({ field: 'password' }), { models: ['User'] }) }), /belongs at the service step, not db/);
    assert.throws(() => hashPassword({ field: 'password', rounds: 3 }), /rounds must be an integer from 4 to 31/);
  });
});
