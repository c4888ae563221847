// List filters: the 18 operators, value coercion, filter[N] groups, base-column opt-in, query limits.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, onlyOn, useServer } from '../support/suite.js';

const docs = [
  { title: 'Alpha report', code: 'A_1', size: 1, score: 1.5, big: 10, active: true, due: '2026-01-01T00:00:00.000Z', labels: ['red', 'blue'], counts: [1, 2], attrs: { color: 'red', n: 3, ok: true }, secret: 's1', note: 'n' },
  { title: 'beta notes', code: 'B%2', size: 2, score: null, big: 20, active: false, due: '2026-02-01T00:00:00.000Z', labels: ['blue'], counts: [3], attrs: { color: 'blue' }, secret: 's2' },
  { title: 'Gamma', code: 'c_3', size: 3, score: 3.5, big: 30, active: true, due: null, labels: [], counts: [], attrs: null },
  { title: 'delta', code: 'D4', size: 4, score: 4.5, big: 40, active: false, due: '2026-04-01T12:30:00.000Z', labels: ['green'], counts: [2, 4], attrs: { color: 'green', n: 4 } },
];

eachBackend('list filters', (backend) => {
  const ids: Record<string, string> = {};
  const server = useServer(backend, { fixture: 'query' });
  before(async () => {
    for (const doc of docs) {
      const res = await server.request('POST', '/docs', { body: doc });
      assert.equal(res.status, 201, res.text);
      ids[doc.title] = res.body.data.id;
    }
  });

  /** Titles of a list, sorted, so assertions do not depend on order. */
  const titles = async (query: string): Promise<string[]> => {
    const res = await server.request('GET', `/docs?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body.data.map((d: { title: string }) => d.title).sort();
  };
  const refused = async (query: string, message: string | RegExp, path = '/docs') => {
    const res = await server.request('GET', `${path}?${query}`);
    assert.equal(res.status, 400, `${query}: ${res.text}`);
    assert.equal(res.body.error.code, 'INVALID_QUERY');
    if (typeof message === 'string') assert.equal(res.body.error.message, message);
    else assert.match(res.body.error.message, message);
  };
  const f = (clause: string) => `filter=${encodeURIComponent(clause)}`;

  it('eq and neq on every scalar kind, values coerced to the column type', async () => {
    assert.deepEqual(await titles(f('size:eq:2')), ['beta notes']);
    assert.deepEqual(await titles(f('score:eq:3.5')), ['Gamma']);
    assert.deepEqual(await titles(f('big:eq:40')), ['delta']);
    assert.deepEqual(await titles(f('active:eq:true')), ['Alpha report', 'Gamma']);
    assert.deepEqual(await titles(f('active:eq:0')), ['beta notes', 'delta']);
    assert.deepEqual(await titles(f('due:eq:2026-04-01T14:30:00+02:00')), ['delta']);
    assert.deepEqual(await titles(f('title:eq:Gamma')), ['Gamma']);
    // neq keeps rows whose value is NULL.
    assert.deepEqual(await titles(f('score:neq:1.5')), ['Gamma', 'beta notes', 'delta']);
  });

  it('gt, gte, lt, lte and between (inclusive)', async () => {
    assert.deepEqual(await titles(f('size:gt:2')), ['Gamma', 'delta']);
    assert.deepEqual(await titles(f('size:gte:2')), ['Gamma', 'beta notes', 'delta']);
    assert.deepEqual(await titles(f('size:lt:2')), ['Alpha report']);
    assert.deepEqual(await titles(f('size:lte:2')), ['Alpha report', 'beta notes']);
    assert.deepEqual(await titles(f('size:between:2,3')), ['Gamma', 'beta notes']);
    assert.deepEqual(await titles(f('due:between:2026-01-15,2026-03-01')), ['beta notes']);
    assert.deepEqual(await titles(f('due:gte:2026-02-01T00:00:00Z')), ['beta notes', 'delta']);
  });

  it('like is a case-sensitive raw pattern, ilike a case-insensitive one', async () => {
    assert.deepEqual(await titles(f('title:like:%a')), ['Gamma', 'delta']);
    assert.deepEqual(await titles(f('title:like:A%')), ['Alpha report']);
    assert.deepEqual(await titles(f('title:like:a%')), []);
    assert.deepEqual(await titles(f('code:like:_\\_%')), []);
    assert.deepEqual(await titles(f('code:like:A_1')), ['Alpha report']);
    assert.deepEqual(await titles(f('title:ilike:a%')), ['Alpha report']);
    assert.deepEqual(await titles(f('title:ilike:%NOTES')), ['beta notes']);
    assert.deepEqual(await titles(f('code:ilike:c_3')), ['Gamma']);
  });

  it('contains, starts_with and ends_with are literal and case-insensitive', async () => {
    assert.deepEqual(await titles(f('title:contains:REP')), ['Alpha report']);
    assert.deepEqual(await titles(f('title:starts_with:GAM')), ['Gamma']);
    assert.deepEqual(await titles(f('title:ends_with:TA')), ['delta']);
    // Wildcards match themselves.
    assert.deepEqual(await titles(f('code:contains:%')), ['beta notes']);
    assert.deepEqual(await titles(f('code:contains:_')), ['Alpha report', 'Gamma']);
    assert.deepEqual(await titles(f('code:starts_with:b%')), ['beta notes']);
    assert.deepEqual(await titles(f('code:ends_with:_3')), ['Gamma']);
    assert.deepEqual(await titles(f('code:contains:\\')), []);
  });

  it('in and not_in take comma lists; an empty list is 400', async () => {
    assert.deepEqual(await titles(f('size:in:1,3')), ['Alpha report', 'Gamma']);
    assert.deepEqual(await titles(f('code:in:D4')), ['delta']);
    assert.deepEqual(await titles(f('size:not_in:1,3')), ['beta notes', 'delta']);
    assert.deepEqual(await titles(f('score:not_in:1.5')), ['Gamma', 'beta notes', 'delta']);
    await refused(f('size:in:'), 'operator in on size needs at least one value: size:in:a,b');
    await refused(f('size:in:1,x'), 'filter value "x" for size is not an integer');
  });

  it('is_null and not_null take no value', async () => {
    assert.deepEqual(await titles(f('score:is_null')), ['beta notes']);
    assert.deepEqual(await titles(f('due:not_null')), ['Alpha report', 'beta notes', 'delta']);
    assert.deepEqual(await titles(f('attrs:is_null')), ['Gamma']);
    await refused(f('score:is_null:1'), 'operator is_null takes no value: write score:is_null');
  });

  it('has and not_has on json_array elements and json_object pairs; contains refused there', async () => {
    assert.deepEqual(await titles(f('labels:has:blue')), ['Alpha report', 'beta notes']);
    assert.deepEqual(await titles(f('labels:not_has:blue')), ['Gamma', 'delta']);
    assert.deepEqual(await titles(f('counts:has:2')), ['Alpha report', 'delta']);
    assert.deepEqual(await titles(f('attrs:has:color=red')), ['Alpha report']);
    assert.deepEqual(await titles(f('attrs:has:n=4')), ['delta']);
    assert.deepEqual(await titles(f('attrs:has:ok=true')), ['Alpha report']);
    assert.deepEqual(await titles(f('attrs:not_has:color=red')), ['Gamma', 'beta notes', 'delta']);
    await refused(f('labels:contains:blue'), 'operator contains does not apply to labels, a json_array column; use has or not_has (labels:has:<element>), is_null or not_null');
    await refused(f('attrs:contains:red'), 'operator contains does not apply to attrs, a json_object column; use has or not_has (attrs:has:<key>=<value>), is_null or not_null');
    await refused(f('attrs:has:red'), 'operator has on attrs, a json_object column, needs key=value: attrs:has:<key>=<value>');
    await refused(f('title:has:x'), 'operator has needs a json_array or json_object column; title is string');
    await refused(f('counts:has:two'), 'filter value "two" for counts is not a number');
  });

  it('a legacy non-JSON value in a JSON column matches nothing instead of failing', onlyOn(backend, 'sqlite', "PostgreSQL's jsonb cannot hold a value that is not JSON"), async () => {
    const res = await server.request('POST', '/docs', { body: { title: 'Legacy', code: 'L' } });
    await server.app.db.raw('UPDATE docs SET labels = ?, attrs = ? WHERE id = ?', ['not json', 'nope', res.body.data.id]);
    assert.deepEqual(await titles(f('labels:has:blue')), ['Alpha report', 'beta notes']);
    assert.deepEqual(await titles(f('attrs:has:color=red')), ['Alpha report']);
    await server.app.db.raw('DELETE FROM docs WHERE id = ?', [res.body.data.id]);
  });

  it('a value of the wrong type is 400 INVALID_QUERY', async () => {
    await refused(f('size:eq:abc'), 'filter value "abc" for size is not an integer');
    await refused(f('size:eq:99999999999'), 'filter value "99999999999" for size is not an integer in range');
    await refused(f('score:gt:1e999'), 'filter value "1e999" for score is not a finite number');
    await refused(f('active:eq:yes'), 'filter value "yes" for active is not a boolean (true, false, 1 or 0)');
    await refused(f('due:gt:tomorrow'), 'filter value "tomorrow" for due is not an ISO 8601 timestamp (2026-01-31 or 2026-01-31T10:00:00Z)');
    await refused(f('size:between:1'), 'operator between on size needs exactly two values: size:between:low,high');
    await refused(f('size:between:1,2,3'), 'operator between on size needs exactly two values: size:between:low,high');
    await refused(f('title:gt'), 'operator gt on title needs a value: title:gt:<value>');
    await refused(f('active:gt:1'), 'operator gt does not apply to active, a boolean column');
    await refused(f('size:like:1%'), 'operator like needs a text column; size is integer (use eq, in or between)');
  });

  it('malformed clauses, unknown operators and fields are 400', async () => {
    await refused(f('size'), 'filter "size" must look like <field>:<operator>:<value>');
    await refused(f(':eq:1'), 'filter ":eq:1" must look like <field>:<operator>:<value>');
    await refused(f('size:approx:1'), 'filter "size:approx:1" has unknown operator "approx"; operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null');
    await refused(f('nope:eq:1'), /^"nope" is not a field of Doc; filterable fields: /);
    await refused(f('note:eq:n'), '"note" of Doc is not filterable; add the filterable directive to the field');
    // Hidden fields cannot be probed through filters.
    await refused(f('secret:eq:s1'), /^"secret" is not a field of Doc/);
  });

  it('a field may be named by its JSON or its column name', async () => {
    await server.request('PATCH', `/docs/${ids.Gamma}`, { body: { priority: 7 } });
    assert.deepEqual(await titles(f('priority:eq:7')), ['Gamma']);
    assert.deepEqual(await titles(f('priority_level:eq:7')), ['Gamma']);
    assert.deepEqual(await titles('sort=priority_level:desc&limit=1'), ['Gamma']);
  });

  it('base columns need their opt-in; the message names the base: setting', async () => {
    await refused(f('updated_at:gt:2020-01-01'), '"updated_at" is a base column of Doc and is not filterable; opt in with the model directive base:updated_at=filterable');
    await refused('sort=updated_at:desc', '"updated_at" is a base column of Doc and is not sortable; opt in with the model directive base:updated_at=sortable');
    assert.deepEqual(await titles(f(`id:eq:${ids.Gamma}`)), ['Gamma']);
  });

  it('filter[N]: the same N ORed, different N ANDed, a bare clause its own AND term', async () => {
    const or = `filter[0]=${encodeURIComponent('size:eq:1')}&filter[0]=${encodeURIComponent('size:eq:4')}`;
    assert.deepEqual(await titles(or), ['Alpha report', 'delta']);
    assert.deepEqual(await titles(`${or}&${f('active:eq:true')}`), ['Alpha report']);
    const twoGroups = `${or}&filter[1]=${encodeURIComponent('labels:has:green')}&filter[1]=${encodeURIComponent('labels:has:red')}`;
    assert.deepEqual(await titles(twoGroups), ['Alpha report', 'delta']);
    assert.deepEqual(await titles(`${twoGroups}&filter[2]=${encodeURIComponent('code:eq:D4')}`), ['delta']);
    await refused(`filter[x]=${encodeURIComponent('size:eq:1')}`, 'filter group "filter[x]" needs a non-negative integer index, as in filter[0]=...');
    await refused(`filter[-1]=${encodeURIComponent('size:eq:1')}`, 'filter group "filter[-1]" needs a non-negative integer index, as in filter[0]=...');
    await refused(`filter[1.5]=${encodeURIComponent('size:eq:1')}`, 'filter group "filter[1.5]" needs a non-negative integer index, as in filter[0]=...');
    await refused(`filter[]=${encodeURIComponent('size:eq:1')}`, 'filter group "filter[]" needs a non-negative integer index, as in filter[0]=...');
    await refused(`filter[0=${encodeURIComponent('size:eq:1')}`, 'filter group "filter[0" needs a non-negative integer index, as in filter[0]=...');
  });

  it('soft-deleted rows are hidden unless the marker is filtered', async () => {
    const res = await server.request('POST', '/docs', { body: { title: 'Gone', code: 'G' } });
    await server.request('DELETE', `/docs/${res.body.data.id}`);
    assert.equal((await titles(f('code:eq:G'))).length, 0);
    assert.deepEqual(await titles(f('deleted_at:not_null')), ['Gone']);
  });

  it('query limits: 32 clauses, 8 groups of 8, with messages naming the limit', async () => {
    const many = Array.from({ length: 33 }, () => f('size:gte:0')).join('&');
    await refused(many, 'too many filter clauses: at most 32 (query_limits:maxFilters)');
    assert.equal((await titles(Array.from({ length: 32 }, () => f('size:gte:0')).join('&'))).length, 4);
    const groups = Array.from({ length: 9 }, (_, i) => `filter[${i}]=${encodeURIComponent('size:gte:0')}`).join('&');
    await refused(groups, 'too many filter groups: at most 8 (query_limits:maxOrGroups)');
    const wide = Array.from({ length: 9 }, () => `filter[0]=${encodeURIComponent('size:gte:0')}`).join('&');
    await refused(wide, 'too many clauses in filter group 0: at most 8 (query_limits:maxOrGroupClauses)');
  });

  it('per-model query limits override the defaults', async () => {
    const ok = await server.request('GET', `/categories?${f('name:eq:a')}&${f('kind:eq:b')}`);
    assert.equal(ok.status, 200);
    await refused(`${f('name:eq:a')}&${f('kind:eq:b')}&${f('kind:eq:c')}`, 'too many filter clauses: at most 2 (query_limits:maxFilters)', '/categories');
    await refused('sort=name:asc,name:desc', 'too many sort keys: at most 1 (query_limits:maxSorts)', '/categories');
    await refused('include=parent,parent.parent', 'too many include paths: at most 1 (query_limits:maxIncludes)', '/categories');
    await refused(`filter[0]=${encodeURIComponent('kind:eq:a')}&filter[1]=${encodeURIComponent('kind:eq:b')}`, 'too many filter groups: at most 1 (query_limits:maxOrGroups)', '/categories');
  });

  it('nothing is written by a refused query', async () => {
    const before = (await server.request('GET', '/docs?limit=200')).body.meta.total;
    await refused(f('size:eq:abc'), 'filter value "abc" for size is not an integer');
    assert.equal((await server.request('GET', '/docs?limit=200')).body.meta.total, before);
  });
});
