// SQLite on a file keeps its WAL bounded however rows are written: SQLite runs its
// autocheckpoint only when a statement runs to its end, and a create's INSERT … RETURNING
// read through `get` stopped at its first row, so a server that only created rows grew
// its WAL without bound (and skipped the checkpoints every other write path pays).
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Registry } from '@mfx/runtime';
import { sqliteFileBackend } from '../support/backends.js';

// SQLite's default wal_autocheckpoint (1000 pages), in frames of a 4096-byte page and its 24-byte header, with room for the last commits.
const BOUND = 1100 * (4096 + 24) + 32;

describe('SQLite WAL on a file', () => {
  for (const how of ['get', 'all', 'run'] as const) {
    it(`stays within the autocheckpoint's size when every write is an INSERT … RETURNING through ${how}`, async () => {
      const { adapter, drop, url } = await sqliteFileBackend.open(new Registry());
      try {
        await adapter.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
        // Each insert commits on its own: one WAL frame or more apiece, 3000 in all.
        for (let i = 0; i < 3000; i++) await adapter[how]('INSERT INTO notes (body) VALUES (?) RETURNING id', ['x'.repeat(200)]);
        const wal = statSync(`${url.slice('sqlite:'.length)}-wal`).size;
        assert.ok(wal <= BOUND, `the WAL holds ${wal} bytes, more than ${BOUND}`);
        assert.equal(Number((await adapter.get('SELECT COUNT(*) AS n FROM notes'))!.n), 3000);
      } finally {
        await adapter.close();
        await drop();
      }
    });
  }
});
