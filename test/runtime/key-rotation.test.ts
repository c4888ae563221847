// Key rotation: rotateKeys and mfx rotate-keys: preflight, batches, an interruption and a resume
// while the server keeps answering reads, a failed preflight that changes nothing, the command line.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { createServer, rotateKeys, type RotateProgress, staticKeyProvider } from '@mfx/runtime';
import { parseEnvelope } from '../../runtime/src/security/encryption/envelope.js';
import { cliDatabase, runMfx } from '../support/cli.js';
import { fixtureManifestDir, loadFixture } from '../support/fixtures.js';
import { memoryLogger } from '../support/server.js';
import { sqliteFileBackend } from '../support/backends.js';
import { eachBackend, postgres, useServer } from '../support/suite.js';
import { openDatabase } from '../../runtime/src/db/open.js';

const ROWS = 2500;
const keys = { default: randomBytes(32), payments: randomBytes(32), k2: randomBytes(32), index: randomBytes(32) };

eachBackend('key rotation', (backend) => {
  const server = useServer(backend, { fixture: 'fields', config: { keyProvider: staticKeyProvider({ keys }) } });
  const ids: string[] = [];
  const keyIds = async () => {
    const rows = await server.app.db.raw('SELECT ssn, notes, card FROM patients');
    const counts: Record<string, number> = {};
    for (const row of rows) for (const value of [row.ssn, row.notes, row.card]) if (value) counts[parseEnvelope(String(value)).keyId] = (counts[parseEnvelope(String(value)).keyId] ?? 0) + 1;
    return counts;
  };

  it(`seeds ${ROWS} patients through the store (encrypted like any write)`, async () => {
    const store = server.app.store('Patient');
    await server.app.db.transaction(async (tx) => {
      for (let i = 0; i < ROWS; i++) ids.push(String((await store.insert(tx, { name: `P${i}`, ssn: `ssn-${i}`, notes: i % 2 ? `note ${i}` : null, card: `card ${i}` })).id));
    });
    assert.deepEqual(await keyIds(), { default: ROWS + ROWS / 2, payments: ROWS });
  });

  it('a dry run reports what would change and changes nothing', async () => {
    const report = await rotateKeys(server.app, { to: 'k2', dryRun: true });
    assert.deepEqual(report, { rows: ROWS, fields: ROWS * 3 - ROWS / 2, failures: [], lastId: null, complete: false });
    assert.deepEqual(await keyIds(), { default: ROWS + ROWS / 2, payments: ROWS });
  });

  it('rotates in batches, stops when onProgress says so, resumes with lastId, while reads keep answering 200', async () => {
    let reading = true;
    const statuses: number[] = [];
    const reader = (async () => {
      for (let i = 0; reading; i++) {
        const res = i % 5 === 0 ? await server.request('GET', '/patients?limit=20') : await server.request('GET', `/patients/${ids[(i * 97) % ids.length]}`);
        statuses.push(res.status);
      }
    })();
    const seen: RotateProgress[] = [];
    const first = await rotateKeys(server.app, {
      to: 'k2',
      batchSize: 200,
      onProgress: (p) => {
        seen.push(p);
        return !(p.phase === 'rotate' && p.done >= 1000);
      },
    });
    assert.equal(first.complete, false);
    assert.equal(first.rows, 1000);
    assert.match(first.lastId!, /^Patient:/);
    assert.ok(seen.some((p) => p.phase === 'preflight') && seen.every((p) => p.phase === 'preflight' || p.total === ROWS));
    // Half rotated: rows under both keys read back.
    const mixed = await keyIds();
    assert.ok(mixed.k2! > 0 && mixed.default! > 0, JSON.stringify(mixed));
    const sample = await server.request('GET', `/patients/${ids[ROWS - 1]}`);
    assert.equal(sample.body.data.card, `card ${ROWS - 1}`);

    const rest = await rotateKeys(server.app, { to: 'k2', batchSize: 200, after: first.lastId! });
    assert.equal(rest.complete, true);
    assert.deepEqual(rest.failures, []);
    assert.equal(first.rows + rest.rows, ROWS);
    assert.equal(first.fields + rest.fields, ROWS * 3 - ROWS / 2);
    reading = false;
    await reader;
    assert.deepEqual(await keyIds(), { k2: ROWS * 3 - ROWS / 2 });
    assert.ok(statuses.length > 0);
    assert.deepEqual([...new Set(statuses)], [200]);

    // Reads, the blind index and writes all work under the new key.
    const one = await server.request('GET', `/patients/${ids[7]}`);
    assert.deepEqual([one.body.data.ssn, one.body.data.notes, one.body.data.card], ['ssn-7', 'note 7', 'card 7']);
    assert.equal((await server.request('POST', '/patients', { body: { name: 'dup', ssn: 'ssn-7' } })).status, 409);
    // A rerun finds nothing to do.
    assert.deepEqual((await rotateKeys(server.app, { to: 'k2', dryRun: true })).rows, 0);
  });

  it('a preflight failure (tampered envelope, wrong blind index) is reported per row and field, and changes nothing', async () => {
    const [a, b] = [ids[10]!, ids[20]!];
    const [row] = await server.app.db.raw('SELECT notes FROM patients WHERE id = ?', [ids[11]]);
    const bytes = Buffer.from(String(row!.notes).slice(4), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    await server.app.db.raw('UPDATE patients SET card = ? WHERE id = ?', [`enc:${bytes.toString('base64')}`, a]);
    await server.app.db.raw('UPDATE patients SET ssn_hmac = ? WHERE id = ?', ['0'.repeat(64), b]);
    const report = await rotateKeys(server.app, { to: 'default' });
    assert.equal(report.complete, false);
    assert.equal(report.lastId, null);
    assert.deepEqual(
      report.failures.map((f) => [f.model, f.id, f.field]).sort(),
      [['Patient', a, 'card'], ['Patient', b, 'ssn']].sort(),
    );
    assert.match(report.failures.find((f) => f.id === b)!.reason, /blind index/);
    assert.equal(JSON.stringify(report.failures).includes('enc:'), false);
    assert.deepEqual(Object.keys(await keyIds()), ['k2']);
  });

  it('refuses an unknown target key and unknown models', async () => {
    await assert.rejects(rotateKeys(server.app, { to: 'nope' }), /no key with id "nope"/);
    await assert.rejects(rotateKeys(server.app, { to: 'k2', models: ['Visit'] }), /Visit has no encrypted fields/);
    await assert.rejects(rotateKeys(server.app, { to: 'k2', models: ['Nope'] }), /no model named Nope/);
  });
});

eachBackend('mfx rotate-keys', (backend) => {
  const env = Object.fromEntries(Object.entries(keys).map(([id, key]) => [`MFX_KEY_${id.toUpperCase()}`, key.toString('base64')]));

  it('rotates a database by URL, prints the report as JSON, and resumes with --after; --dry-run changes nothing', async () => {
    const db = await cliDatabase(backend);
    try {
      const dir = await fixtureManifestDir('fields');
      assert.equal((await runMfx(['migrate', '--manifest', dir, '--db', db.url])).code, 0);
      const app = createServer({ logger: memoryLogger(), handleSignals: false, keyProvider: staticKeyProvider({ keys }) });
      app.register(await loadFixture('fields'));
      app.setDB(openDatabase(db.url, app.registry));
      await app.db.init(memoryLogger());
      app.handler();
      for (let i = 0; i < 30; i++) await app.store('Patient').insert(app.db, { name: `C${i}`, ssn: `c-${i}`, card: `card ${i}` });
      await app.db.close();

      const dry = await runMfx(['rotate-keys', '--manifest', dir, '--db', db.url, '--to', 'k2', '--dry-run'], { env });
      assert.equal(dry.code, 0, dry.stderr);
      assert.deepEqual(JSON.parse(dry.stdout), { rows: 30, fields: 60, failures: [], lastId: null, complete: false });
      assert.match(dry.stderr, /dry run: 30 rows \(60 values\) would be re-encrypted to "k2"; nothing was changed/);

      const ran = await runMfx(['rotate-keys', '--manifest', dir, '--db', db.url, '--to', 'k2', '--models', 'Patient'], { env });
      assert.equal(ran.code, 0, ran.stderr);
      const report = JSON.parse(ran.stdout);
      assert.equal(report.rows, 30);
      assert.equal(report.complete, true);
      assert.match(ran.stderr, /rotated 30\/30 rows \(Patient\)\n/, 'plain progress lines off a terminal');
      const stored = await db.query('SELECT ssn, card FROM patients');
      assert.ok(stored.every((r) => parseEnvelope(String(r.ssn)).keyId === 'k2' && parseEnvelope(String(r.card)).keyId === 'k2'));

      const resumed = await runMfx(['rotate-keys', '--manifest', dir, '--db', db.url, '--to', 'k2', '--after', report.lastId], { env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(JSON.parse(resumed.stdout).rows, 0);

      const missing = await runMfx(['rotate-keys', '--manifest', dir, '--db', db.url], { env });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /mfx rotate-keys: --to KEYID is required/);
      const noKeys = await runMfx(['rotate-keys', '--manifest', dir, '--db', db.url, '--to', 'k2'], { env: Object.fromEntries(Object.keys(env).map((k) => [k, undefined])) });
      assert.equal(noKeys.code, 1);
      assert.match(noKeys.stderr, /rotate-keys needs the keys: set MFX_KEY_<ID> variables/);
    } finally {
      await db.drop();
    }
  });
}, [sqliteFileBackend, postgres]);
