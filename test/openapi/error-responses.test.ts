// The document's error responses come from the error catalogue: one
// component per status, listing every code of that status with when it is
// answered, so the two can never drift apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDocument, type PathContribution, Registry } from '@mfx/runtime';
import { resolveConfig } from '../../runtime/src/config/config.js';
import { errorCatalogue } from '../../runtime/src/errors/catalogue.js';
import { errorResponses } from '../../runtime/src/openapi/shared-components.js';
import { loadFixture } from '../support/fixtures.js';

const statuses = [...new Set(Object.values(errorCatalogue).map((entry) => String(entry.status)))];

describe('error responses from the catalogue', () => {
  it('has a component for every status the catalogue has, and no other', () => {
    assert.deepEqual(Object.keys(errorResponses).sort(), statuses.sort());
    assert.deepEqual(
      Object.fromEntries(Object.entries(errorResponses).map(([status, entry]) => [status, entry.name])),
      {
        '400': 'BadRequest',
        '401': 'Unauthorized',
        '403': 'Forbidden',
        '404': 'NotFound',
        '405': 'MethodNotAllowed',
        '408': 'RequestTimeout',
        '409': 'Conflict',
        '412': 'PreconditionFailed',
        '413': 'PayloadTooLarge',
        '414': 'UriTooLong',
        '415': 'UnsupportedMediaType',
        '416': 'RangeNotSatisfiable',
        '417': 'ExpectationFailed',
        '422': 'ValidationFailed',
        '429': 'RateLimited',
        '431': 'RequestHeaderFieldsTooLarge',
        '500': 'InternalError',
        '501': 'NotImplemented',
        '503': 'ServiceUnavailable',
        '504': 'Timeout',
      },
    );
  });

  it("lists every catalogued code, with when it is answered, in its status's component only", () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      for (const [status, { response }] of Object.entries(errorResponses)) {
        const listed = response.description.split('\n\n').includes(`${code}: ${entry.when}`);
        assert.equal(listed, status === String(entry.status), `${code} (${entry.status}) in the ${status} component`);
      }
    }
    assert.equal(errorResponses['400'].response.description.split('\n\n').length, Object.values(errorCatalogue).filter((e) => e.status === 400).length);
  });

  it('gives every error response the error envelope, and serves each through doc.errors', async () => {
    const registry = new Registry();
    registry.register(await loadFixture('routes'));
    const everything: PathContribution = {
      name: 'every error',
      contribute: (doc) => doc.operation('get', '/errors', { responses: { '200': { description: 'ok' }, ...doc.errors(...statuses) } }),
    };
    const doc = buildDocument({ registry, config: resolveConfig({}), hooks: () => [], contributions: [everything], served: new Set(['GET /api/errors']) }) as any;
    for (const status of statuses) {
      const { name } = errorResponses[status];
      assert.deepEqual(doc.paths['/errors'].get.responses[status], { $ref: `#/components/responses/${name}` });
      assert.deepEqual(doc.components.responses[name].content, { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
    }
    assert.match(doc.components.responses.UnsupportedMediaType.description, /^FILE_TYPE_NOT_ALLOWED: [^\n]+$/);
    assert.match(doc.components.responses.PayloadTooLarge.description, /\n\nFILE_TOO_LARGE: .*\n\nEXPORT_TOO_LARGE: /);
  });
});
