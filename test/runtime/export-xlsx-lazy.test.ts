// exceljs is an optional peer dependency loaded by the first XLSX export: importing the
// runtime, serving and exporting CSV never load it (this file runs in a process of its own).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { sqlite, useServer } from '../support/suite.js';

const loadedExcel = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/exceljs/'));

describe('exceljs is loaded lazily', () => {
  const server = useServer(sqlite, { fixture: 'analytics' });

  it('is not loaded by the runtime, a served app or a CSV export; an XLSX export loads it', async () => {
    assert.equal(loadedExcel(), false, 'importing the runtime and starting a server');
    await server.request('POST', '/readings', { body: { n: 1, sensor: 's', value: 1 } });
    const csv = await fetch(`${server.url}/readings/export`);
    assert.equal(csv.status, 200);
    await csv.arrayBuffer();
    assert.equal(loadedExcel(), false, 'after a CSV export');
    const xlsx = await fetch(`${server.url}/readings/export?format=xlsx`);
    assert.equal(xlsx.status, 200);
    await xlsx.arrayBuffer();
    assert.equal(loadedExcel(), true, 'after an XLSX export');
  });
});
