// The aggregate route (spec "Optional model routes", rules 1-7) and named
// expressions, end to end on both backends: the same exact numbers on each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { add, ApiError, col, createServer, describeHook, div, etag, forceFilter, lit, mul, silentLogger, sub } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { rawExchange } from '../support/raw-http.js';
import { eachBackend, useServer } from '../support/suite.js';

const SALES = [
  { region: 'north', status: 'paid', qty: 3, price: 1.5, cost: 2, big: 9007199254740991, paid: true, soldAt: '2026-01-01T00:00:00.000Z', rank: 1, units: 10, tags: ['x'], tenant: 'a', note: 'n1', secret: 1 },
  { region: 'north', status: 'open', qty: 4, price: 2.25, cost: null, big: 9007199254740991, paid: false, soldAt: '2026-02-01T00:00:00.000Z', rank: 2, units: 20, tags: [], tenant: 'a', note: null, secret: 2 },
  { region: 'south', status: 'paid', qty: 7, price: 0.5, cost: 3, big: 5, paid: true, soldAt: null, rank: 3, units: 30, tags: ['x', 'y,z'], tenant: 'a', note: null, secret: 3 },
  { region: 'south', status: 'paid', qty: -7, price: 4, cost: 0, big: -2, paid: true, soldAt: null, rank: 4, units: 40, tags: ['y'], tenant: 'a', note: null, secret: 4 },
  { region: 'east', status: 'paid', qty: 100, price: 10, cost: 1, big: 1, paid: true, soldAt: '2026-04-01T00:00:00.000Z', rank: 5, units: 1, tags: [], tenant: 'b', note: null, secret: 5 },
  { region: 'north', status: 'open', qty: 1, price: 0.25, cost: 5, big: 0, paid: false, soldAt: '2026-03-01T00:00:00.000Z', rank: 6, units: 5, tags: [], tenant: 'a', note: null, secret: 6 },
];

const encode = (spec: unknown) => encodeURIComponent(typeof spec === 'string' ? spec : JSON.stringify(spec));

eachBackend('aggregate route', (backend) => {
  const server = useServer(backend, {
    fixture: 'aggregates',
    setup(app) {
      app.expression({ model: 'Sale', name: 'margin', expr: sub(mul(col('qty'), col('price')), col('cost')), exposed: true });
      app.expression({ model: 'Sale', name: 'ratio', expr: div(col('qty'), col('cost')), exposed: true });
      app.expression({ model: 'Sale', name: 'half', expr: div(col('qty'), lit(2)), exposed: true });
      app.expression({ model: 'Sale', name: 'plusOne', expr: add(col('qty'), lit(1)) });
      // x-tenant plays tenancy (an Auth-step scope); x-deny a list gate; x-region a force filter; x-abort a cancelled request.
      app.use('auth', async (ctx, next) => {
        const tenant = ctx.req.headers['x-tenant'];
        if (typeof tenant === 'string') ctx.scope.push({ field: 'tenant', value: tenant });
        await next();
      });
      app.use('auth', describeHook(async (ctx, next) => {
        if (ctx.req.headers['x-deny'] === 'yes') throw new ApiError('FORBIDDEN', 'listing sales is denied');
        await next();
      }, { role: 'gate', label: 'x-deny gate' }), { models: ['Sale'], ops: ['list'] });
      app.use('response', etag(), { position: 'after', models: ['Sale'], ops: ['list'] });
      app.use('db', forceFilter((ctx) => (typeof ctx.req.headers['x-region'] === 'string' ? { region: ctx.req.headers['x-region'] } : null)), { models: ['Sale'] });
      app.use('db', async (ctx, next) => {
        if (ctx.req.headers['x-abort'] === 'yes') ctx.abort('client gone');
        if (ctx.req.headers['x-break'] === 'yes') await ctx.db.raw('DROP TABLE fragiles');
        await next();
      }, { ops: ['list'] });
    },
  });

  const aggregate = (spec: unknown, extra = '', headers: Record<string, string> = {}) =>
    server.request('GET', `/sales/aggregate?aggregate=${encode(spec)}${extra}`, { headers });
  const refused = async (spec: unknown, message: string, code = 'INVALID_AGGREGATE', extra = '') => {
    const res = await aggregate(spec, extra);
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.error, { code, message });
  };

  it('seeds the sales', async () => {
    for (const sale of SALES) assert.equal((await server.request('POST', '/sales', { body: sale })).status, 201);
  });

  it('counts rows with the default alias and groups with sum, avg, min, max and count_distinct (rule 1)', async () => {
    assert.deepEqual((await aggregate({ select: [{ op: 'count' }] })).body, { data: [{ count: 6 }] });
    const res = await aggregate({
      select: [{ op: 'sum', field: 'qty' }, { op: 'avg', field: 'qty' }, { op: 'min', field: 'price' }, { op: 'max', field: 'qty' }, { op: 'count_distinct', field: 'status' }, { op: 'count', field: 'cost' }],
      group_by: ['region'],
      order_by: [{ field: 'region', direction: 'asc' }],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      { region: 'east', sum_qty: 100, avg_qty: 100, min_price: 10, max_qty: 100, count_distinct_status: 1, count_cost: 1 },
      { region: 'north', sum_qty: 8, avg_qty: 8 / 3, min_price: 0.25, max_qty: 4, count_distinct_status: 2, count_cost: 2 },
      { region: 'south', sum_qty: 0, avg_qty: 0, min_price: 0.5, max_qty: 7, count_distinct_status: 1, count_cost: 2 },
    ]);
    // The digits on the wire, not only the parsed numbers.
    assert.match(res.text, /"avg_qty":2\.6666666666666665,/);
  });

  it('keeps every digit of a bigint sum beyond 2^53 as a JSON number', async () => {
    const res = await aggregate({ select: [{ op: 'sum', field: 'big', as: 'total' }, { op: 'max', field: 'big' }], group_by: ['region'], where: [{ field: 'region', operator: 'eq', value: 'north' }] });
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"data":[{"region":"north","total":18014398509481982,"max_big":9007199254740991}]}');
    // etag() tags the text that is sent, exact digits and all.
    assert.equal(res.headers.get('etag'), `"${createHash('md5').update(res.text).digest('hex')}"`);
    const all = await aggregate({ select: [{ op: 'sum', field: 'big' }, { op: 'avg', field: 'big' }] });
    assert.equal(all.text, `{"data":[{"sum_big":18014398509481986,"avg_big":${JSON.stringify(Number(18014398509481986n) / 6)}}]}`);
  });

  it('leaves text min/max and group columns as stored; timestamps and flags read as in list rows', async () => {
    const res = await aggregate({ select: [{ op: 'min', field: 'region' }, { op: 'max', field: 'soldAt', as: 'last' }, { op: 'count' }], group_by: ['paid'], order_by: [{ field: 'paid', direction: 'desc' }] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      { paid: true, min_region: 'east', last: '2026-04-01T00:00:00.000Z', count: 4 },
      { paid: false, min_region: 'north', last: '2026-03-01T00:00:00.000Z', count: 2 },
    ]);
  });

  it('accepts column names as well as JSON names, and sortable-only fields (rule 2)', async () => {
    const res = await aggregate({ select: [{ op: 'sum', field: 'unit_count' }, { op: 'max', field: 'rank' }], group_by: ['region'], order_by: [{ field: 'region' }] });
    assert.deepEqual(res.body.data, [
      { region: 'east', sum_units: 1, max_rank: 5 },
      { region: 'north', sum_units: 35, max_rank: 6 },
      { region: 'south', sum_units: 70, max_rank: 4 },
    ]);
  });

  it('filters groups with having, orders by aliases and group columns, and limits', async () => {
    const res = await aggregate({
      select: [{ op: 'count' }, { op: 'sum', field: 'qty', as: 'q' }],
      group_by: ['region'],
      having: [{ alias: 'count', operator: 'gt', value: 1 }],
      order_by: [{ field: 'q', direction: 'desc' }],
    });
    assert.deepEqual(res.body.data, [{ region: 'north', count: 3, q: 8 }, { region: 'south', count: 2, q: 0 }]);
    const between = await aggregate({ select: [{ op: 'avg', field: 'price', as: 'p' }], group_by: ['region'], having: [{ alias: 'p', operator: 'between', value: [1, 3] }] });
    assert.deepEqual(between.body.data, [{ region: 'north', p: 4 / 3 }, { region: 'south', p: 2.25 }]);
    const neq = await aggregate({ select: [{ op: 'min', field: 'status', as: 's' }], group_by: ['region'], having: [{ alias: 's', operator: 'neq', value: 'paid' }] });
    assert.deepEqual(neq.body.data, [{ region: 'north', s: 'open' }]);
    const limited = await aggregate({ select: [{ op: 'count' }], group_by: ['rank'], order_by: [{ field: 'rank', direction: 'desc' }], limit: 2 });
    assert.deepEqual(limited.body.data, [{ rank: 6, count: 1 }, { rank: 5, count: 1 }]);
    assert.equal((await aggregate({ select: [{ op: 'count' }], group_by: ['rank'], limit: 500 })).body.data.length, 6);
    assert.deepEqual((await aggregate({ select: [{ op: 'count' }], limit: 0 })).body.data, []);
  });

  it('uses every filter operator in where, with the same rows as the list filter', async () => {
    const cases: [unknown, string][] = [
      [{ field: 'region', operator: 'eq', value: 'north' }, 'region:eq:north'],
      [{ field: 'cost', operator: 'neq', value: 2 }, 'cost:neq:2'],
      [{ field: 'qty', operator: 'gt', value: 3 }, 'qty:gt:3'],
      [{ field: 'qty', operator: 'gte', value: 3 }, 'qty:gte:3'],
      [{ field: 'price', operator: 'lt', value: 1 }, 'price:lt:1'],
      [{ field: 'price', operator: 'lte', value: 1.5 }, 'price:lte:1.5'],
      [{ field: 'region', operator: 'like', value: 'n%' }, 'region:like:n%25'],
      [{ field: 'region', operator: 'ilike', value: 'SO%' }, 'region:ilike:SO%25'],
      [{ field: 'region', operator: 'contains', value: 'ort' }, 'region:contains:ort'],
      [{ field: 'region', operator: 'starts_with', value: 'ea' }, 'region:starts_with:ea'],
      [{ field: 'region', operator: 'ends_with', value: 'th' }, 'region:ends_with:th'],
      [{ field: 'tags', operator: 'has', value: 'x' }, 'tags:has:x'],
      [{ field: 'tags', operator: 'not_has', value: 'x' }, 'tags:not_has:x'],
      [{ field: 'region', operator: 'in', value: ['east', 'south'] }, 'region:in:east,south'],
      [{ field: 'region', operator: 'not_in', value: ['east'] }, 'region:not_in:east'],
      [{ field: 'soldAt', operator: 'between', value: ['2026-01-15', '2026-03-15'] }, 'soldAt:between:2026-01-15,2026-03-15'],
      [{ field: 'cost', operator: 'is_null' }, 'cost:is_null'],
      [{ field: 'soldAt', operator: 'not_null' }, 'soldAt:not_null'],
      [{ field: 'paid', operator: 'eq', value: false }, 'paid:eq:false'],
    ];
    for (const [where, filter] of cases) {
      const list = await server.request('GET', `/sales?filter=${filter}`);
      const res = await aggregate({ select: [{ op: 'count' }], where: [where] });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data[0].count, list.body.meta.total, `${filter}: ${res.text}`);
    }
    // An in value may hold a comma (it is a JSON array, not a comma list).
    assert.equal((await aggregate({ select: [{ op: 'count' }], where: [{ field: 'tags', operator: 'has', value: 'y,z' }] })).body.data[0].count, 1);
  });

  it('folds filter and filter[N] into the WHERE with the list grouping (rule 3)', async () => {
    const extra = '&filter=status:eq:paid&filter[0]=region:eq:north&filter[0]=region:eq:south';
    const list = await server.request('GET', `/sales?${extra.slice(1)}`);
    const res = await aggregate({ select: [{ op: 'count' }, { op: 'sum', field: 'qty' }] }, extra);
    assert.deepEqual(res.body.data, [{ count: list.body.meta.total, sum_qty: 3 }]);
    assert.equal(list.body.meta.total, 3);
    const bad = await aggregate({ select: [{ op: 'count' }] }, '&filter=nope:eq:1');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'INVALID_QUERY');
  });

  it('runs as the list operation: list gates, tenancy scope and force filters apply (rule 3)', async () => {
    const denied = await aggregate({ select: [{ op: 'count' }] }, '', { 'x-deny': 'yes' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body.error, { code: 'FORBIDDEN', message: 'listing sales is denied' });
    assert.deepEqual((await aggregate({ select: [{ op: 'count' }] }, '', { 'x-tenant': 'b' })).body.data, [{ count: 1 }]);
    assert.deepEqual((await aggregate({ select: [{ op: 'sum', field: 'qty' }] }, '', { 'x-tenant': 'a', 'x-region': 'south' })).body.data, [{ sum_qty: 0 }]);
    assert.deepEqual((await aggregate({ select: [{ op: 'count' }] }, '', { 'x-tenant': 'b', 'x-region': 'south' })).body.data, [{ count: 0 }]);
  });

  it('leaves soft-deleted rows out, unless where names the marker', async () => {
    const created = await server.request('POST', '/sales', { body: { ...SALES[0], region: 'gone', tenant: 'z' } });
    assert.equal((await server.request('DELETE', `/sales/${created.body.data.id}`)).status, 204);
    assert.deepEqual((await aggregate({ select: [{ op: 'count' }], where: [{ field: 'tenant', operator: 'eq', value: 'z' }] })).body.data, [{ count: 0 }]);
  });

  it('selects named expressions: NULLIF division, truncating integer division, bound literals (rule 6)', async () => {
    const res = await aggregate({
      select: [{ op: 'sum', field: 'ratio' }, { op: 'max', field: 'half' }, { op: 'min', field: 'half' }, { op: 'sum', field: 'margin' }, { op: 'count', field: 'ratio' }],
      group_by: ['rank'],
      order_by: [{ field: 'rank' }],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      { rank: 1, sum_ratio: 1, max_half: 1, min_half: 1, sum_margin: 2.5, count_ratio: 1 },
      { rank: 2, sum_ratio: null, max_half: 2, min_half: 2, sum_margin: null, count_ratio: 0 },
      { rank: 3, sum_ratio: 2, max_half: 3, min_half: 3, sum_margin: 0.5, count_ratio: 1 },
      { rank: 4, sum_ratio: null, max_half: -3, min_half: -3, sum_margin: -28, count_ratio: 0 },
      { rank: 5, sum_ratio: 100, max_half: 50, min_half: 50, sum_margin: 999, count_ratio: 1 },
      { rank: 6, sum_ratio: 0, max_half: 0, min_half: 0, sum_margin: -4.75, count_ratio: 1 },
    ]);
    const avg = await aggregate({ select: [{ op: 'avg', field: 'half' }, { op: 'sum', field: 'half' }] });
    assert.deepEqual(avg.body.data, [{ avg_half: 53 / 6, sum_half: 53 }]);
  });

  it('refuses expressions in group_by, order_by and where, and unexposed ones over HTTP', async () => {
    const fields = 'aggregatable fields of Sale: region, status, qty, price, cost, big, paid, soldAt, rank, tenant, tags, units, created_at, deleted_at';
    await refused({ select: [{ op: 'count' }], group_by: ['ratio'] }, 'group_by[0] names the expression ratio; expressions can be selected, not grouped by');
    await refused(
      { select: [{ op: 'sum', field: 'ratio' }], order_by: [{ field: 'ratio' }] },
      'order_by[0] names the expression ratio; expressions can be selected, not ordered by (order by the alias of a select term instead)',
    );
    await refused({ select: [{ op: 'count' }], where: [{ field: 'half', operator: 'gt', value: 1 }] }, 'where[0] names the expression half; expressions can be selected, not filtered on');
    await refused(
      { select: [{ op: 'sum', field: 'plusOne' }] },
      `select[0] names unknown field "plusOne"; ${fields}; exposed expressions: margin, ratio, half`,
    );
    // The alias of an expression term orders fine.
    const res = await aggregate({ select: [{ op: 'sum', field: 'ratio', as: 'r' }], group_by: ['region'], order_by: [{ field: 'r', direction: 'desc' }] });
    assert.deepEqual(res.body.data, [{ region: 'east', r: 100 }, { region: 'south', r: 2 }, { region: 'north', r: 1 }]);
  });

  it('answers every malformed spec 400 INVALID_AGGREGATE naming the problem (rules 4 and 5)', async () => {
    const fields = 'aggregatable fields of Sale: region, status, qty, price, cost, big, paid, soldAt, rank, tenant, tags, units, created_at, deleted_at';
    const missing = await server.request('GET', '/sales/aggregate');
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.error, { code: 'INVALID_AGGREGATE', message: 'the aggregate parameter is missing: send ?aggregate=<url-encoded JSON>, e.g. {"select":[{"op":"count"}]}' });
    await refused('{"select":', 'the aggregate parameter is not valid JSON (Unexpected end of JSON input); send a url-encoded JSON object');
    await refused('[1]', 'the aggregate parameter must be a JSON object, got [1]');
    await refused({ select: [{ op: 'count' }], group: ['region'] }, 'the aggregate object has unknown key "group"; keys: select, group_by, where, having, order_by, limit');
    await refused({ select: [{ op: 'count', alias: 'n' }] }, 'select[0] has unknown key "alias"; keys: op, field, as');
    await refused({ select: [{ op: 'median', field: 'qty' }] }, 'select[0] has unknown op "median"; ops: count, count_distinct, sum, avg, min, max');
    await refused({ select: [{ op: 'sum', field: 'nope' }] }, `select[0] names unknown field "nope"; ${fields}; exposed expressions: margin, ratio, half`);
    await refused({ select: [{ op: 'sum', field: 'secret' }] }, `select[0] names unknown field "secret"; ${fields}; exposed expressions: margin, ratio, half`);
    await refused({ select: [{ op: 'count', field: 'note' }] }, `select[0] names note, which is neither filterable nor sortable; add one of those directives to the field (${fields})`);
    await refused({ select: [] }, 'select needs at least one term, e.g. {"select":[{"op":"count"}]}');
    await refused({ group_by: ['region'] }, 'select needs at least one term, e.g. {"select":[{"op":"count"}]}');
    await refused({ select: [{ op: 'sum' }] }, 'select[0]: sum needs a field');
    await refused({ select: [{ op: 'sum', field: 'region' }] }, 'select[0]: sum needs a numeric field; region is string');
    await refused({ select: [{ op: 'max', field: 'paid' }] }, 'select[0]: max does not apply to paid, a boolean field; use it on text, numbers or timestamps');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'qty', operator: 'near', value: 1 }] }, 'where[0] has unknown operator "near"; operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'qty', operator: 'contains', value: 'x' }] }, 'where[0]: operator contains needs a text column; qty is integer (use eq, in or between)');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'qty', operator: 'eq', value: 'many' }] }, 'where[0]: filter value "many" for qty is not an integer');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'qty', operator: 'in', value: 3 }] }, 'where[0]: operator in needs an array value, e.g. ["a", "b"]');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'qty', operator: 'between', value: [1] }] }, 'where[0]: operator between on qty needs exactly two values: [low, high]');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'cost', operator: 'is_null', value: 1 }] }, 'where[0]: operator is_null takes no value; leave value out');
    await refused({ select: [{ op: 'count' }], where: [{ field: 'region', operator: 'eq', value: 'a\u0000b' }] }, 'where[0].value contains a NUL character, which no field can hold');
    await refused({ select: [{ op: 'count' }], having: [{ alias: 'n', operator: 'gt', value: 1 }] }, 'having[0] names unknown alias "n"; aliases: count');
    await refused({ select: [{ op: 'count' }], having: [{ alias: 'count', operator: 'gt', value: 1.5 }] }, 'having[0]: filter value "1.5" for count is not an integer');
    await refused({ select: [{ op: 'count' }], order_by: [{ field: 'count', direction: 'up' }] }, 'order_by[0].direction must be "asc" or "desc", got "up"');
    await refused({ select: [{ op: 'count' }], group_by: ['region'], order_by: [{ field: 'qty' }] }, 'order_by[0] names qty, which is neither a select alias nor a group_by field; aliases: count');
    await refused({ select: [{ op: 'count' }], group_by: ['tags'] }, 'group_by[0] names tags, a json_array field; group by scalar fields');
    await refused({ select: [{ op: 'count' }], group_by: ['region', 'region'] }, 'group_by[1] names region twice');
    await refused({ select: [{ op: 'count' }], group_by: [3] }, 'group_by[0] needs a field name, got 3');
    await refused({ select: [{ op: 'count' }], limit: -1 }, 'limit must not be negative, got -1');
    await refused({ select: [{ op: 'count' }], limit: '10' }, 'limit must be an integer, got "10"');
    await refused({ select: { op: 'count' } }, 'select must be an array, got {"op":"count"}');
    // Over the query limits: 16 select, 8 group, 32 where, 16 having, 8 order terms.
    await refused({ select: Array.from({ length: 17 }, (_, i) => ({ op: 'count', as: `c${i}` })) }, 'too many select terms: 17, at most 16 (query_limits:aggregateSelect)');
    await refused({ select: [{ op: 'count' }], group_by: Array(9).fill('region') }, 'too many group_by terms: 9, at most 8 (query_limits:aggregateGroupBy)');
    await refused({ select: [{ op: 'count' }], where: Array(33).fill({ field: 'qty', operator: 'gt', value: 0 }) }, 'too many where terms: 33, at most 32 (query_limits:aggregateWhere)');
    await refused({ select: [{ op: 'count' }], having: Array(17).fill({ alias: 'count', operator: 'gt', value: 0 }) }, 'too many having terms: 17, at most 16 (query_limits:aggregateHaving)');
    await refused({ select: [{ op: 'count' }], order_by: Array(9).fill({ field: 'count' }) }, 'too many order_by terms: 9, at most 8 (query_limits:aggregateOrderBy)');
    // List parameters that do not apply.
    await refused({ select: [{ op: 'count' }] }, 'sort is not a parameter of the aggregate route; use order_by inside aggregate', 'INVALID_QUERY', '&sort=qty');
  });

  it('answers a duplicate alias 400', async () => {
    await refused(
      { select: [{ op: 'count' }, { op: 'sum', field: 'qty', as: 'count' }] },
      'duplicate alias "count" at select[1]: every select term and group_by field needs its own name in the row; set "as" to tell them apart',
    );
    await refused(
      { select: [{ op: 'count', as: 'region' }], group_by: ['region'] },
      'duplicate alias "region" at select[0]: every select term and group_by field needs its own name in the row; set "as" to tell them apart',
    );
  });

  it('answers a request body 400 INVALID_AGGREGATE without reading it (rule 4)', async () => {
    const path = new URL(`${server.url}/sales/aggregate?aggregate=${encode({ select: [{ op: 'count' }] })}`);
    const exchange = await rawExchange(server.url, [`GET ${path.pathname}${path.search} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`]);
    assert.equal(exchange.responses[0].status, 400);
    assert.deepEqual(exchange.responses[0].body.error, {
      code: 'INVALID_AGGREGATE',
      message: 'the aggregate route reads no request body; send the spec as the url-encoded JSON query parameter aggregate',
    });
  });

  it('answers a database failure with a redacted 500 and a cancelled request 504', async () => {
    const broken = await server.request('GET', `/fragiles/aggregate?aggregate=${encode({ select: [{ op: 'count' }] })}`, { headers: { 'x-break': 'yes' } });
    assert.equal(broken.status, 500);
    assert.deepEqual(broken.body.error, { code: 'DB_ERROR', message: 'internal server error' });
    assert.doesNotMatch(broken.text, /fragiles|table|SQL/i);
    const aborted = await aggregate({ select: [{ op: 'count' }] }, '', { 'x-abort': 'yes' });
    assert.equal(aborted.status, 504);
    assert.equal(aborted.body.error.code, 'TIMEOUT');
  });

  it('is mounted only on models with the aggregate directive', async () => {
    const res = await server.request('GET', `/plains/aggregate?aggregate=${encode({ select: [{ op: 'count' }] })}`);
    assert.equal(res.status, 404);
  });

  it('documents the route with the JSON shape, aggregatable fields and exposed expressions (rule 7)', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const parameter = doc.paths['/sales/aggregate'].get.parameters[0];
    assert.equal(parameter.name, 'aggregate');
    assert.match(parameter.description, /aggregatable fields: region, status, qty, price, cost, big, paid, soldAt, rank, tenant, tags, units, created_at, deleted_at; exposed expressions: margin = \(\(qty \* price\) - cost\), ratio = \(qty \/ cost\), half = \(qty \/ 2\)$/);
    const schema = parameter.content['application/json'].schema;
    assert.deepEqual(schema.required, ['select']);
    assert.deepEqual(schema.properties.select.items.properties.field.enum.slice(-3), ['margin', 'ratio', 'half']);
    assert.equal(schema.properties.where.maxItems, 32);
    assert.equal(doc.paths['/plains/aggregate'], undefined);
  });

  it('runs from code with every expression, big integers as BigInt', async () => {
    const rows = await server.app.aggregate('Sale', { select: [{ op: 'sum', field: 'plusOne' }, { op: 'sum', field: 'big' }], where: [{ field: 'region', operator: 'eq', value: 'north' }] });
    assert.deepEqual(rows, [{ sum_plusOne: 11, sum_big: 18014398509481982n }]);
    const scoped = await server.app.aggregate('Sale', '{"select":[{"op":"count"}]}', { scope: [{ field: 'tenant', value: 'b' }] });
    assert.deepEqual(scoped, [{ count: 1 }]);
  });
});

describe('named expressions at registration', () => {
  const app = async () => {
    const created = createServer({ logger: silentLogger, handleSignals: false });
    created.register(await loadFixture('aggregates'));
    return created;
  };

  it('refuses an unknown model, an unknown, hidden or non-numeric column, a field name, a duplicate and excess depth', async () => {
    const server = await app();
    const refuses = (definition: unknown, message: string) => assert.throws(() => server.expression(definition as never), { name: 'ConfigError', message });
    refuses({ model: 'Nope', name: 'x', expr: col('qty') }, 'mfx: the expression "x" names model Nope, which is not registered (registered: Fragile, Plain, Sale)');
    const numeric = 'numeric columns: qty, price, cost, big, rank, units';
    refuses({ model: 'Sale', name: 'x', expr: col('nope') }, `mfx: expression "x" of Sale: unknown column "nope"; ${numeric}`);
    refuses({ model: 'Sale', name: 'x', expr: col('region') }, `mfx: expression "x" of Sale: column region is not numeric (string); ${numeric}`);
    refuses({ model: 'Sale', name: 'x', expr: add(col('qty'), col('secret')) }, `mfx: expression "x" of Sale: column secret is hidden, writeonly or encrypted and cannot be aggregated; ${numeric}`);
    refuses({ model: 'Sale', name: 'qty', expr: col('price') }, 'mfx: expression "qty" of Sale: the name collides with the field qty; choose another name');
    refuses({ model: 'Sale', name: 'unit_count', expr: col('price') }, 'mfx: expression "unit_count" of Sale: the name collides with the field units (column unit_count); choose another name');
    refuses({ model: 'Sale', name: 'x', expr: lit(Number.NaN) }, 'mfx: expression "x" of Sale: literal NaN is not a finite number');
    refuses({ model: 'Sale', name: 'x', expr: { kind: 'pow', left: col('qty'), right: lit(2) } }, 'mfx: expression "x" of Sale: unknown node kind "pow"; build it with col, lit, add, sub, mul and div');
    let deep = col('qty') as ReturnType<typeof add> | ReturnType<typeof col>;
    for (let i = 0; i < 8; i++) deep = add(deep, lit(1));
    refuses({ model: 'Sale', name: 'deep', expr: deep }, 'mfx: expression "deep" of Sale: nests deeper than 8 levels; split it or simplify it');
    server.expression({ model: 'Sale', name: 'fine', expr: col('qty') });
    refuses({ model: 'Sale', name: 'fine', expr: col('price') }, 'mfx: expression "fine" of Sale is registered twice; give each expression its own name');
  });
});
