// Encrypted fields end to end: sealing on write, opening on every read path, the blind index of
// encrypted,unique, startup checks, ENCRYPTION_NOT_CONFIGURED, DECRYPTION_ERROR, and that neither
// plaintext nor ciphertext reaches history, logs or error bodies.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createServer, openSqlite, staticKeyProvider } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

export const testKeys = () => ({ default: randomBytes(32), payments: randomBytes(32), index: randomBytes(32) });

const SSN = '078-05-1120';
const NOTES = 'allergic to penicillin';
const CARD = '4111 1111 1111 1111';

eachBackend('encrypted fields', (backend) => {
  const server = useServer(backend, { fixture: 'fields', config: { keyProvider: staticKeyProvider({ keys: testKeys() }), trace: { enabled: true, bodies: true } } });
  const raw = (sql: string, params: unknown[] = []) => server.app.db.raw(sql, params);
  const create = async (body: Record<string, unknown>) => {
    const res = await server.request('POST', '/patients', { body });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('round-trips through create, read, list, update, select and include; the stored form is an envelope', async () => {
    const created = await create({ name: 'Ada', ssn: SSN, notes: NOTES, card: CARD });
    assert.deepEqual([created.ssn, created.notes, created.card], [SSN, NOTES, CARD]);
    const id = created.id;
    assert.deepEqual((await server.request('GET', `/patients/${id}`)).body.data.notes, NOTES);
    const listed = (await server.request('GET', '/patients?filter=name:eq:Ada')).body.data;
    assert.deepEqual(listed.map((p: { card: string }) => p.card), [CARD]);
    const selected = await server.request('GET', `/patients/${id}?select=ssn`);
    assert.deepEqual(selected.body.data, { ssn: SSN });
    const updated = await server.request('PATCH', `/patients/${id}`, { body: { notes: 'none' } });
    assert.equal(updated.status, 200);
    assert.deepEqual([updated.body.data.notes, updated.body.data.ssn], ['none', SSN]);
    const visit = await server.request('POST', '/visits', { body: { reason: 'checkup', patientId: id } });
    const included = await server.request('GET', `/visits/${visit.body.data.id}?include=patient`);
    assert.equal(included.body.data.patient.card, CARD);
    const withVisits = await server.request('GET', `/patients/${id}?include=visits`);
    assert.equal(withVisits.body.data.ssn, SSN);

    const [row] = await raw('SELECT ssn, ssn_hmac, notes, card FROM patients WHERE id = ?', [id]);
    for (const column of ['ssn', 'notes', 'card']) assert.match(String(row![column]), /^enc:[A-Za-z0-9+/=]+$/, column);
    assert.doesNotMatch(String(row!.ssn), new RegExp(SSN));
    assert.match(String(row!.ssn_hmac), /^[0-9a-f]{64}$/);
    assert.equal(JSON.stringify(withVisits.body).includes('ssn_hmac'), false, 'the blind index is never answered');
  });

  it('stores two equal plaintexts differently (fresh nonce), with equal blind indexes only where unique', async () => {
    const a = await create({ name: 'Twin A', ssn: '111-11-1111', notes: 'same', card: CARD });
    const b = await create({ name: 'Twin B', ssn: '222-22-2222', notes: 'same', card: CARD });
    const rows = await raw('SELECT id, notes, card FROM patients WHERE id IN (?, ?)', [a.id, b.id]);
    assert.equal(rows.length, 2);
    assert.notEqual(rows[0]!.notes, rows[1]!.notes);
    assert.notEqual(rows[0]!.card, rows[1]!.card);
  });

  it('refuses a duplicate of an encrypted,unique value through the blind index: 409 naming the field, never the index', async () => {
    await create({ name: 'First', ssn: '333-33-3333' });
    const before = (await raw('SELECT COUNT(*) AS n FROM patients'))[0]!.n;
    const dup = await server.request('POST', '/patients', { body: { name: 'Second', ssn: '333-33-3333' } });
    assert.equal(dup.status, 409, dup.text);
    assert.equal(dup.body.error.code, 'CONFLICT');
    assert.match(dup.body.error.message, /ssn/);
    assert.equal(dup.body.error.details.column, 'ssn');
    assert.doesNotMatch(dup.text, /hmac|[0-9a-f]{64}|333-33-3333|enc:/);
    assert.equal((await raw('SELECT COUNT(*) AS n FROM patients'))[0]!.n, before);
    // An update onto another record's value conflicts the same way.
    const other = await create({ name: 'Third', ssn: '444-44-4444' });
    const moved = await server.request('PATCH', `/patients/${other.id}`, { body: { ssn: '333-33-3333' } });
    assert.equal(moved.status, 409);
    assert.equal(moved.body.error.details.column, 'ssn');
    assert.doesNotMatch(moved.text, /hmac|[0-9a-f]{64}/);
    // The blind index follows an update of the value, so the old value is free again.
    assert.equal((await server.request('PATCH', `/patients/${other.id}`, { body: { ssn: '555-55-5555' } })).status, 200);
    assert.equal((await server.request('POST', '/patients', { body: { name: 'Fourth', ssn: '444-44-4444' } })).status, 201);
  });

  it('validates the plaintext before sealing it, and the 422 does not echo it', async () => {
    const long = 'x'.repeat(65);
    const res = await server.request('POST', '/patients', { body: { name: 'Long', ssn: long } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.details[0].field, 'ssn');
    assert.equal(res.text.includes(long), false);
  });

  it('keeps encrypted fields and their blind index out of history, and plaintext and ciphertext out of the logs', async () => {
    const created = await create({ name: 'Histo', ssn: '666-66-6666', notes: 'history secret' });
    await server.request('PATCH', `/patients/${created.id}`, { body: { notes: 'second secret', name: 'Histo 2' } });
    const history = await server.request('GET', `/patients/${created.id}/history`);
    assert.equal(history.status, 200);
    const [stored] = await raw('SELECT ssn, notes FROM patients WHERE id = ?', [created.id]);
    const tables = await raw('SELECT diff, snapshot FROM patient_history WHERE record_id = ?', [created.id]);
    assert.ok(tables.length >= 2);
    const historyText = history.text + JSON.stringify(tables);
    for (const secret of ['666-66-6666', 'history secret', 'second secret', String(stored!.ssn), String(stored!.notes), 'ssn_hmac', '"notes"', '"card"']) {
      assert.equal(historyText.includes(secret), false, `history holds ${secret}`);
    }
    assert.match(historyText, /Histo 2/, 'history still records the plain fields');
    const logText = JSON.stringify(server.logs);
    for (const secret of ['666-66-6666', 'history secret', 'second secret', String(stored!.ssn), String(stored!.notes)]) {
      assert.equal(logText.includes(secret), false, `the log holds ${secret}`);
    }
    assert.ok(server.logs.some((l) => l.message === 'request body' && JSON.stringify(l.fields).includes('[encrypted]')), 'trace bodies are logged, redacted');
  });

  it('answers DECRYPTION_ERROR for a tampered value, logging model, id and field but never the value', async () => {
    const created = await create({ name: 'Tampered', ssn: '777-77-7777', notes: 'tamper me' });
    const [row] = await raw('SELECT notes FROM patients WHERE id = ?', [created.id]);
    const bytes = Buffer.from(String(row!.notes).slice(4), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    const tampered = `enc:${bytes.toString('base64')}`;
    await server.app.db.raw('UPDATE patients SET notes = ? WHERE id = ?', [tampered, created.id]);
    const logged = server.logLine((l) => l.message === 'an encrypted value cannot be decrypted' && l.fields.id === created.id);
    const res = await server.request('GET', `/patients/${created.id}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: { code: 'DECRYPTION_ERROR', message: 'internal server error' } });
    const line = await logged;
    assert.deepEqual([line.fields.model, line.fields.field], ['Patient', 'notes']);
    assert.equal(JSON.stringify(line).includes(tampered), false);
    assert.equal(JSON.stringify(server.logs).includes('tamper me'), false);
    // A list that meets the row answers the same.
    assert.equal((await server.request('GET', '/patients?filter=name:eq:Tampered')).body.error.code, 'DECRYPTION_ERROR');
    // An unknown key id: an envelope relabelled to another id (which also fails authentication).
    const relabelled = Buffer.concat([Buffer.of(1, 7), Buffer.from('missing'), bytes.subarray(2 + bytes[1]!)]);
    await server.app.db.raw('UPDATE patients SET notes = ? WHERE id = ?', [`enc:${relabelled.toString('base64')}`, created.id]);
    const unknown = server.logLine((l) => l.message === 'an encrypted value cannot be decrypted' && String(l.fields.reason).includes('missing'));
    assert.equal((await server.request('GET', `/patients/${created.id}`)).body.error.code, 'DECRYPTION_ERROR');
    await unknown;
    await server.app.db.raw('DELETE FROM patients WHERE id = ?', [created.id]);
  });

  it('never answers the blind index: select, filter and sort refuse it as an unknown field, and a body cannot set it', async () => {
    const created = await create({ name: 'Hmac', ssn: '121-21-2121' });
    const [row] = await raw('SELECT ssn_hmac FROM patients WHERE id = ?', [created.id]);
    const cases: [string, string][] = [
      ['select=ssn_hmac', 'select names unknown field "ssn_hmac" of Patient; selectable: id, name, ssn, notes, card, created_at, updated_at'],
      ['filter=ssn_hmac:eq:x', '"ssn_hmac" is not a field of Patient; filterable fields: name'],
      ['sort=ssn_hmac:asc', '"ssn_hmac" is not a field of Patient; sortable fields: name'],
      ['filter=ssn:eq:121-21-2121', '"ssn" of Patient is encrypted, and encrypted fields cannot be filtered'],
      ['sort=notes:desc', '"notes" of Patient is encrypted, and encrypted fields cannot be sorted'],
    ];
    for (const [query, message] of cases) {
      const res = await server.request('GET', `/patients?${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { error: { code: 'INVALID_QUERY', message } }, query);
    }
    const read = await server.request('GET', `/patients/${created.id}?select=ssn_hmac`);
    assert.equal(read.status, 400);
    assert.equal(read.body.error.message, 'select names unknown field "ssn_hmac" of Patient; selectable: id, name, ssn, notes, card, created_at, updated_at');
    // A body naming the column is not a field either: the stored index is the value's own.
    const forged = await server.request('POST', '/patients', { body: { name: 'Forged', ssn: '131-31-3131', ssn_hmac: '0'.repeat(64) } });
    assert.equal(forged.status, 201, forged.text);
    assert.equal('ssn_hmac' in forged.body.data, false);
    const [stored] = await raw('SELECT ssn_hmac FROM patients WHERE id = ?', [forged.body.data.id]);
    assert.match(String(stored!.ssn_hmac), /^[0-9a-f]{64}$/);
    assert.notEqual(stored!.ssn_hmac, '0'.repeat(64));
    const patched = await server.request('PATCH', `/patients/${created.id}`, { body: { ssn_hmac: '0'.repeat(64) } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await raw('SELECT ssn_hmac FROM patients WHERE id = ?', [created.id]), [row]);
    for (const res of [forged, patched]) assert.equal(res.text.includes('hmac'), false);
  });

  it('decrypts every record a list, an include of either direction and a write answer carry, cached or not', async () => {
    const a = await create({ name: 'Cached A', ssn: '141-41-4141', notes: 'note a', card: CARD });
    const b = await create({ name: 'Cached B', ssn: '151-51-5151', notes: null });
    for (const [patient, reason] of [
      [a, 'first'],
      [a, 'second'],
      [b, 'third'],
    ] as const) {
      assert.equal((await server.request('POST', '/visits', { body: { reason, patientId: patient.id } })).status, 201);
    }
    for (let round = 0; round < 2; round++) {
      const listed = await server.request('GET', '/patients?filter=name:starts_with:Cached&sort=name:asc&include=visits');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.map((p: { ssn: string; notes: string | null; card: string | null; visits: unknown[] }) => [p.ssn, p.notes, p.card, p.visits.length]),
        [
          ['141-41-4141', 'note a', CARD, 2],
          ['151-51-5151', null, null, 1],
        ],
      );
      const visits = await server.request('GET', `/visits?filter=patientId:eq:${a.id}&include=patient`);
      assert.deepEqual(visits.body.data.map((v: { patient: { ssn: string; notes: string } }) => [v.patient.ssn, v.patient.notes]), [
        ['141-41-4141', 'note a'],
        ['141-41-4141', 'note a'],
      ]);
      assert.equal(JSON.stringify([listed.body, visits.body]).includes('enc:'), false, 'no envelope is answered');
    }
  });

  it('answers a value stored before the field was encrypted as stored, with a warning naming model, id and field', async () => {
    const created = await create({ name: 'Legacy', ssn: '888-88-8888' });
    await server.app.db.raw('UPDATE patients SET notes = ? WHERE id = ?', ['written in clear', created.id]);
    const warned = server.logLine((l) => l.level === 'warn' && l.fields.field === 'notes' && l.fields.model === 'Patient');
    const res = await server.request('GET', `/patients/${created.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.notes, 'written in clear');
    assert.equal((await warned).fields.id, created.id);
  });
});

eachBackend('encrypted fields without a key provider', (backend) => {
  const server = useServer(backend, { fixture: 'fields' });
  const count = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM patients'))[0]!.n);

  it('starts, and answers ENCRYPTION_NOT_CONFIGURED to writes of the model without writing anything', async () => {
    const create = await server.request('POST', '/patients', { body: { name: 'Nobody', ssn: SSN } });
    assert.equal(create.status, 500);
    assert.deepEqual(create.body, { error: { code: 'ENCRYPTION_NOT_CONFIGURED', message: 'internal server error' } });
    assert.equal(await count(), 0);
    assert.equal(create.text.includes(SSN), false);
  });

  it('refuses reads and updates of a record holding an encrypted value; models without encrypted fields are untouched', async () => {
    await server.app.db.raw("INSERT INTO patients (id, name, ssn, notes, card, created_at, updated_at) VALUES ('p1', 'Held', 'enc:AQdkZWZhdWx0', NULL, NULL, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')");
    const read = await server.request('GET', '/patients/p1');
    assert.equal(read.status, 500);
    assert.equal(read.body.error.code, 'ENCRYPTION_NOT_CONFIGURED');
    const patch = await server.request('PATCH', '/patients/p1', { body: { name: 'Changed' } });
    assert.equal(patch.body.error.code, 'ENCRYPTION_NOT_CONFIGURED');
    assert.equal((await server.app.db.raw("SELECT name FROM patients WHERE id = 'p1'"))[0]!.name, 'Held');
    assert.equal((await server.request('POST', '/plain_profiles', { body: { name: 'Plain', email: 'a@b.c' } })).status, 201);
  });
});

describe('encrypted fields at startup', () => {
  const boot = async (keys: Record<string, string | Uint8Array>, indexKeyId?: string) => {
    const app = createServer({ handleSignals: false, logger: memoryLogger(), port: 0, keyProvider: staticKeyProvider({ keys, ...(indexKeyId ? { indexKeyId } : {}) }) });
    app.register(await loadFixture('fields'));
    app.setDB(openSqlite(':memory:', app.registry));
    try {
      await app.start();
    } finally {
      await app.stop().catch(() => {});
    }
  };

  it('refuses a key id that no key answers, naming model, field and key id', async () => {
    await assert.rejects(boot({ default: randomBytes(32), index: randomBytes(32) }), {
      name: 'ConfigError',
      message: /Patient\.card is encrypted with key id "payments", which the key provider does not have \(with envKeyProvider\(\), set MFX_KEY_PAYMENTS\)/,
    });
  });

  it('refuses encrypted,unique without the blind-index key', async () => {
    await assert.rejects(boot({ default: randomBytes(32), payments: randomBytes(32) }), { message: /Patient\.ssn is encrypted,unique and needs the blind-index key "index"/ });
    await assert.rejects(boot({ default: randomBytes(32), payments: randomBytes(32), index: randomBytes(32) }, 'blind'), { message: /blind-index key "blind"/ });
  });

  it('refuses keys of the wrong length, naming where they came from and never the value', async () => {
    const short = randomBytes(16).toString('base64');
    await assert.rejects(boot({ default: short }), (error: Error) => {
      assert.match(error.message, /staticKeyProvider key "default" holds 16 bytes; an encryption key is exactly 32 bytes/);
      assert.equal(error.message.includes(short), false);
      return true;
    });
    const server = startServer(sqlite, { fixture: 'fields', config: { keyProvider: { key: (id) => (id === 'payments' ? new Uint8Array(31) : new Uint8Array(32)) } } });
    await assert.rejects(server, { message: /key id "payments" with 31 bytes; an encryption key is exactly 32 bytes/ });
  });

  it('loads the keys of an asynchronous provider once per key id', async () => {
    const asked: string[] = [];
    const key = randomBytes(32);
    const server = await startServer(sqlite, { fixture: 'fields', config: { keyProvider: { key: async (id) => (asked.push(id), key) } } });
    try {
      const created = await server.request('POST', '/patients', { body: { name: 'Async', ssn: SSN, card: CARD } });
      assert.equal(created.status, 201);
      assert.equal((await server.request('GET', `/patients/${created.body.data.id}`)).body.data.card, CARD);
      assert.deepEqual([...asked].sort(), ['default', 'index', 'payments']);
    } finally {
      await server.close();
    }
  });
});

eachBackend('encrypted fields without the decryption cache', (backend) => {
  const server = useServer(backend, { fixture: 'fields', config: { keyProvider: staticKeyProvider({ keys: testKeys() }), decryptionCache: 0 } });

  it('decrypts on every read, and still answers DECRYPTION_ERROR for a value tampered after it was read', async () => {
    const created = await server.request('POST', '/patients', { body: { name: 'Uncached', ssn: '161-61-6161', notes: NOTES } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    for (let i = 0; i < 2; i++) assert.equal((await server.request('GET', `/patients/${id}`)).body.data.notes, NOTES);
    const [row] = await server.app.db.raw('SELECT notes FROM patients WHERE id = ?', [id]);
    const bytes = Buffer.from(String(row!.notes).slice(4), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    await server.app.db.raw('UPDATE patients SET notes = ? WHERE id = ?', [`enc:${bytes.toString('base64')}`, id]);
    const res = await server.request('GET', `/patients/${id}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: { code: 'DECRYPTION_ERROR', message: 'internal server error' } });
  });
});

describe('the decryptionCache setting', () => {
  it('refuses anything but a whole number of bytes, naming the setting', () => {
    for (const value of [-1, 1.5, Number.NaN, '8MB']) {
      assert.throws(() => createServer({ handleSignals: false, decryptionCache: value as number }), {
        name: 'ConfigError',
        message: `mfx: decryptionCache must be a whole number of bytes, 0 or more (0 turns the cache off), got ${JSON.stringify(value)}`,
      });
    }
  });
});

eachBackend('encrypted fields in the OpenAPI document', (backend) => {
  const server = useServer(backend, { fixture: 'fields', config: { keyProvider: staticKeyProvider({ keys: testKeys() }) } });

  it('offers encrypted fields to neither filter nor sort, and leaves them out of the history entry', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const list = doc.paths['/patients'].get.parameters;
    const filter = list.find((p: { name?: string }) => p.name === 'filter');
    assert.match(filter.description, /Filterable fields: name \(string\)\./);
    const sort = list.find((p: { name?: string }) => p.name === 'sort');
    assert.deepEqual(sort.schema.items.enum, ['name:asc', 'name:desc']);
    const select = list.find((p: { name?: string }) => p.name === 'select');
    assert.deepEqual(select.schema.items.enum, ['id', 'name', 'ssn', 'notes', 'card', 'created_at', 'updated_at']);
    const history = JSON.stringify(Object.entries(doc.components.schemas).filter(([name]) => /^Patient.*History/.test(name)));
    assert.notEqual(history, '[]', 'Patient is versioned: its history is documented');
    for (const field of ['"ssn"', '"notes"', '"card"', 'hmac']) assert.equal(history.includes(field), false, `history documents ${field}`);
  });

  it('shows an encrypted field as a plain string with a note, and never the blind-index column', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const text = JSON.stringify(doc);
    assert.equal(text.includes('ssn_hmac') || text.includes('ssnHmac'), false);
    const schemas = Object.entries(doc.components.schemas as Record<string, { properties?: Record<string, { type?: unknown; description?: string }> }>).filter(([name]) => name.startsWith('Patient'));
    assert.ok(schemas.length > 0);
    for (const [name, schema] of schemas) {
      const ssn = schema.properties?.ssn;
      if (!ssn) continue;
      assert.equal(ssn.type, 'string', name);
      assert.match(ssn.description ?? '', /Stored encrypted/, name);
    }
  });
});
