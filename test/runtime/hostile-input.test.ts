// A bounded hostile-input run (issue 14): seeded, deterministic requests across every
// parameter of every route the hostile fixture serves (read from its own OpenAPI document):
// path ids, every list and read parameter, and bodies whose fields carry huge text, NUL
// characters, lone surrogates, odd Unicode, SQL-ish text, wrong types and deep nesting.
// No answer may be a 5xx, lack the error envelope or X-Request-Id, or disagree with the
// document. MFX_HOSTILE_SEED and MFX_HOSTILE_ROUNDS run other or longer sequences locally
// (MFX_HOSTILE_DEBUG=1 prints what the database said about each 500).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { TestResponse } from '../support/server.js';
import { eachBackend, useServer } from '../support/suite.js';

const SEED = Number(process.env.MFX_HOSTILE_SEED ?? 0x14_4e55);
/** Passes over every operation of the document: 40 passes are 1,480 requests per database. */
const ROUNDS = Number(process.env.MFX_HOSTILE_ROUNDS ?? 40);
/** The JSON body limit is 4 MB: bodies go somewhat past it, so some answer 413 while they are still being sent. */
const MAX_BODY_BYTES = 6_000_000;

/** mulberry32: a small seeded generator, so every run sends the same requests. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(list: readonly T[]): T => list[int(list.length)], chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof generator>;

let wide = 0x20000;
/** Distinct 4-byte characters: the most bytes per character. */
const widest = (n: number) => {
  let text = '';
  for (let i = 0; i < n; i++) {
    if (wide > 0x2fff0) wide = 0x20000;
    text += String.fromCodePoint(wide++);
  }
  return text;
};

/** Text that has broken servers: quotes and SQL, NUL, lone surrogates, odd Unicode, numbers and dates that are not. */
const HOSTILE_TEXT = [
  '',
  ' ',
  "'",
  '"',
  "x' OR '1'='1",
  '1; DROP TABLE gizmos; --',
  "'); DELETE FROM makers; --",
  '/* comment */',
  '$1',
  '?',
  '::jsonb',
  '%',
  '_',
  '\\',
  '\\u0000',
  '\0',
  'a\0b',
  '\ud800',
  '\udfff',
  'a\ud83db',
  '\u202e\u200f',
  '\ufeff',
  '\u200b',
  '\uffff',
  '\ufffd',
  'n\u0303',
  '😀👩‍👩‍👧‍👦',
  '𝔘𝔫𝔦',
  'İı',
  '\u0085\u2028\u2029',
  '\t\r\n',
  'NaN',
  '-0',
  '1e309',
  '9007199254740993',
  '2026-13-45T99:99:99Z',
  '0000-00-00T00:00:00Z',
  'true',
  'null',
  '[]',
  '{}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'NEAR(a b)',
  'a OR b AND NOT c',
  '%00',
  '%ZZ',
];

/** Hostile text, sometimes huge (a megabyte, a near-limit body, 4-byte characters). */
function hostileText(r: Random): string {
  const roll = r.next();
  if (roll < 0.04) return 'x'.repeat(r.pick([256, 671, 4096, 100_001]));
  if (roll < 0.05) return widest(r.pick([256, 671, 20_000]));
  // Megabytes cost the most time: rare, but in every run.
  if (roll < 0.052) return r.chance(0.5) ? 'x'.repeat(1_000_000) : 'y'.repeat(3_800_000);
  if (roll < 0.08) return `${r.pick(HOSTILE_TEXT)}${r.pick(HOSTILE_TEXT)}`;
  return r.pick(HOSTILE_TEXT);
}

const nest = (levels: number, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

/** Any JSON value, wrong in some way for most fields. */
function hostileValue(r: Random): unknown {
  const roll = r.next();
  if (roll < 0.45) return hostileText(r);
  if (roll < 0.65) return r.pick([null, true, false, 0, -1, 1.5, -0, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE]);
  if (roll < 0.75) return Array.from({ length: r.int(4) }, () => hostileText(r));
  if (roll < 0.82) return nest(r.pick([2, 63, 64, 65, 500]), r.chance(0.5) ? hostileText(r) : {});
  if (roll < 0.92) {
    const object: Record<string, unknown> = {};
    for (let i = r.int(4); i > 0; i--) object[r.pick(['', 'en', 'de', 'constructor', 'toString', 'a.b', 'x\0', '😀', '\ud800', 'k'.repeat(300)])] = hostileValue(r);
    return object;
  }
  return Array.from({ length: r.pick([0, 1000]) }, (_, i) => i);
}


/** Percent-encodes UTF-8 bytes (a lone surrogate becomes U+FFFD), never throwing like encodeURIComponent. */
const pct = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/**
 * Encodings a URL may carry that no encoder writes: a bare %, a bad escape, an encoded lone
 * surrogate, overlong UTF-8. (Not `..` or `%2e%2e` alone: the client resolves dot segments, so
 * the request would reach another path than the one checked.)
 */
const RAW_ESCAPES = ['%', '%ZZ', '%ED%A0%80', '%C0%AF', '%FF', '%00', '%2F', '%2e%2e%2F', '.%2e.', '%E2%80%AE'];

const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'contains', 'starts_with', 'ends_with', 'has', 'not_has', 'in', 'not_in', 'between', 'is_null', 'not_null'];

type Schema = { type?: string | string[]; enum?: unknown[]; format?: string; items?: Schema; properties?: Record<string, Schema>; anyOf?: Schema[]; maxLength?: number };
interface Operation {
  method: string;
  path: string;
  query: { name: string; schema: Schema }[];
  body: Record<string, Schema> | null;
}

/** Every operation of the document, with its query parameters and body properties resolved. */
function operationsOf(doc: any): Operation[] {
  const resolve = (node: any): any => (node?.$ref ? resolve(node.$ref.slice(2).split('/').reduce((at: any, key: string) => at[key], doc)) : node);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (method === 'parameters') continue;
      const query = (op.parameters ?? []).map(resolve).filter((p: any) => p.in === 'query');
      const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
      operations.push({ method: method.toUpperCase(), path, query: query.map((p: any) => ({ name: p.name, schema: resolve(p.schema) ?? {} })), body: schema?.properties ?? null });
    }
  }
  return operations;
}

/** A value a field would accept, so the rest of a body gets past validation to the database. */
function plausible(r: Random, name: string, schema: Schema, ids: Ids): unknown {
  if (name === 'makerId') return r.pick(ids.makers);
  if (name === 'gizmoId') return r.pick(ids.gizmos);
  if (schema.enum) return r.pick(schema.enum);
  const types = ([] as string[]).concat(schema.type ?? (schema.anyOf ? 'string' : 'object'));
  if (types.includes('null') && r.chance(0.2)) return null;
  if (schema.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + r.int(365))).toISOString();
  if (types.includes('string')) return `v${r.int(1e9)}-${name}`.slice(0, schema.maxLength ?? 40);
  if (types.includes('integer')) return r.int(1000);
  if (types.includes('number')) return r.next() * 100;
  if (types.includes('boolean')) return r.chance(0.5);
  if (types.includes('array')) return [`t${r.int(10)}`];
  return { k: `v${r.int(10)}` };
}

interface Ids {
  makers: string[];
  gizmos: string[];
  parts: string[];
}

interface Request {
  method: string;
  path: string;
  init: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> };
  what: string;
}

/** Raw bodies: not JSON, not an object, broken UTF-8, a byte-order mark, nesting past any stack. */
function rawBody(r: Random, ids: Ids): string | Buffer {
  return r.pick<() => string | Buffer>([
    () => '',
    () => 'null',
    () => '[]',
    () => '"text"',
    () => '{',
    () => '{"code":',
    () => '{"code":"a"}}',
    () => Buffer.from([0x7b, 0x22, 0x63, 0x6f, 0x64, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]),
    () => `\ufeff{"name":"bom"}`,
    () => `{"code":"\\ud800","name":"\\udfff","makerId":"${ids.makers[0]}"}`,
    () => '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
    () => '{"name":"a","name":"b"}',
    () => `{"specs":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    () => `${'['.repeat(200_000)}`,
    () => `{"name":1e999999,"rank":-0,"price":1e-400}`,
  ])();
}

/** One request of an operation, its every part drawn from the generator. */
function requestFor(r: Random, op: Operation, ids: Ids): Request {
  const pathId = () => {
    const roll = r.next();
    if (roll < 0.35) return r.pick([...ids.makers, ...ids.gizmos, ...ids.parts]);
    if (roll < 0.5) return '00000000-0000-4000-8000-000000000000';
    if (roll < 0.7) return r.pick(RAW_ESCAPES) + r.pick(['', 'a', pct(hostileText(r).slice(0, 2000))]);
    return pct(hostileText(r).slice(0, 3000));
  };
  let path = op.path.replace('{id}', pathId);
  const params: string[] = [];
  for (const { name, schema } of op.query) {
    if (!r.chance(0.4)) continue;
    params.push(`${name === 'filter[N]' ? `filter[${r.pick(['0', '1', '7', '99999999999', '-1', 'x', ''])}]` : name}=${queryValue(r, name, schema, op)}`);
  }
  if (r.chance(0.1)) params.push(`${pct(hostileText(r).slice(0, 100))}=${pct(hostileText(r).slice(0, 100))}`);
  if (params.length) path += `?${params.join('&')}`;

  const headers: Record<string, string> = {};
  if (r.chance(0.1)) headers['x-request-id'] = r.pick(['', 'x'.repeat(200), '../../etc', 'a b', 'ok-id.1:2']);
  if (r.chance(0.05)) headers['if-match'] = r.pick(['*', '"x"', 'W/"', '']);
  if (!op.body) return { method: op.method, path, init: { headers }, what: `${op.method} ${path.slice(0, 200)}` };

  if (r.chance(0.08)) headers['content-type'] = r.pick(['text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']);
  if (r.chance(0.15)) {
    const raw = rawBody(r, ids);
    headers['content-type'] ??= 'application/json';
    return { method: op.method, path, init: { raw, headers }, what: `${op.method} ${path.slice(0, 200)} raw ${String(raw).slice(0, 80)}` };
  }
  for (;;) {
    const body: Record<string, unknown> = {};
    const allHostile = r.chance(0.3);
    for (const [name, schema] of Object.entries(op.body)) {
      if (r.chance(0.15)) continue;
      const value = allHostile || r.chance(0.25) ? hostileValue(r) : plausible(r, name, schema, ids);
      body[name] = value;
    }
    if (r.chance(0.1)) body[hostileText(r).slice(0, 50)] = hostileValue(r);
    const text = JSON.stringify(body);
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) continue;
    headers['content-type'] ??= 'application/json';
    return { method: op.method, path, init: { raw: text, headers }, what: `${op.method} ${path.slice(0, 200)} ${text.slice(0, 160)}` };
  }
}

/** The value of one query parameter: mostly well-formed with hostile parts, sometimes hostile through and through. */
function queryValue(r: Random, name: string, schema: Schema, op: Operation): string {
  if (r.chance(0.25)) return r.chance(0.3) ? r.pick(RAW_ESCAPES) : pct(hostileText(r).slice(0, 4000));
  const fields = ['id', 'created_at', 'code', 'kind', 'serial', 'family', 'rank', 'price', 'weight', 'active', 'releasedAt', 'tags', 'specs', 'label', 'notes', 'secret', 'name', 'maker.name', 'gizmo.code', 'parts.name', 'gizmos.kind', 'maker.gizmos.code'];
  const enumOf = (s: Schema) => (s.items?.enum ?? s.enum ?? []) as string[];
  const value = () => (r.chance(0.5) ? pct(hostileText(r).slice(0, 1000)) : String(r.int(100)));
  switch (name) {
    case 'filter':
    case 'filter[N]':
      return `${pct(r.pick(fields))}:${r.pick(OPERATORS)}:${r.chance(0.2) ? `${value()},${value()}` : value()}`;
    case 'sort':
      return [...enumOf(schema), ...fields, 'code:sideways'].filter(() => r.chance(0.3)).join(',') || r.pick(fields);
    case 'include':
      return [...enumOf(schema), 'maker.gizmos', 'gizmo.maker', 'nope', 'maker.gizmos.parts'].filter(() => r.chance(0.4)).join(',');
    case 'select':
      return [...Object.keys(op.body ?? {}), ...fields].filter(() => r.chance(0.3)).join(',');
    case 'page':
    case 'limit':
      return r.pick(['0', '1', '2', '200', '201', '10000000', '10000001', '-1', '1.5', '1e3', '9007199254740993', '99999999999999999999', '']);
    case 'cursor':
      return r.pick(['', 'abc', 'abc.def', `${'A'.repeat(3000)}.x`, 'eyJ2IjoiYSIsImlkIjoiYiJ9.AAAA']);
    case 'locale':
      return r.pick(['en', 'de', '*', 'en-US', 'xx-YY-ZZ', '']);
    default:
      return value();
  }
}

/** The one 5xx by design: a multipart body without a registered parser is 501 NO_STORAGE (documented). */
const designed = (request: Request, res: TestResponse) =>
  res.status === 501 && res.body?.error?.code === 'NO_STORAGE' && (request.init.headers?.['content-type'] ?? '').startsWith('multipart/');

eachBackend('hostile input', (backend) => {
  const server = useServer(backend, { fixture: 'hostile' });
  const ids: Ids = { makers: [], gizmos: [], parts: [] };

  before(async () => {
    for (const name of ['Acme', 'Globex']) ids.makers.push((await server.request('POST', '/makers', { body: { name } })).body.data.id);
    for (const [i, makerId] of ids.makers.entries()) {
      const gizmo = { code: `g${i}`, kind: 'k', family: `f${i}`, makerId, tags: ['a'], specs: { k: 'v' }, label: { en: 'Hi' } };
      ids.gizmos.push((await server.request('POST', '/gizmos', { body: gizmo })).body.data.id);
    }
    ids.parts.push((await server.request('POST', '/parts', { body: { name: 'bolt', gizmoId: ids.gizmos[0] } })).body.data.id);
  });

  it(`${ROUNDS} passes over every operation: no 5xx, every error in the envelope, X-Request-Id on every answer (seed ${SEED})`, async () => {
    const operations = operationsOf((await server.request('GET', '/openapi.json')).body);
    // Three models' list, create, read, update, delete, OPTIONS and HEAD, the history route, the probes, the document and its page with the page's files.
    assert.equal(operations.length, 41, operations.map((o) => `${o.method} ${o.path}`).join(', '));
    const r = generator(SEED);
    const failures: string[] = [];
    let sent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const op of operations) {
        const request = requestFor(r, op, ids);
        sent++;
        let res: TestResponse;
        try {
          res = await server.request(request.method, request.path, request.init);
        } catch (error) {
          failures.push(`#${sent} ${request.what}\n  ${(error as Error).message.slice(0, 500)}`);
          continue;
        }
        const problems = [
          res.status >= 500 && !designed(request, res) && `answered ${res.status}: ${res.text.slice(0, 300)}`,
          !res.headers.get('x-request-id') && 'no X-Request-Id',
          res.status >= 400 && request.method !== 'HEAD' && (typeof res.body?.error?.code !== 'string' || typeof res.body?.error?.message !== 'string') && `no error envelope: ${res.text.slice(0, 200)}`,
        ].filter(Boolean);
        if (problems.length) failures.push(`#${sent} ${request.what}\n  ${problems.join('; ')}`);
        // MFX_HOSTILE_DEBUG=1 prints the database's own words and the whole body of each 500.
        if (res.status === 500 && process.env.MFX_HOSTILE_DEBUG) console.log(`#${sent}`, server.logs.filter((l) => l.message === 'database error').pop()?.fields.err, String(request.init.raw ?? '').slice(0, 3000));
      }
    }
    assert.equal(sent, ROUNDS * operations.length);
    assert.deepEqual(failures.slice(0, 15), [], `${failures.length} of ${sent} requests failed`);
    // Still serving, and still reading what it wrote.
    assert.equal((await server.request('GET', '/ready')).status, 200);
    assert.equal((await server.request('GET', '/gizmos?limit=1')).status, 200);
  });
});
