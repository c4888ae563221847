// Concurrent deletes of one record: exactly one succeeds, whatever the model's referential
// actions, soft or hard delete, history and observers; the others answer 404 and change nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerHandle } from '../support/server.js';
import { eachBackend, useServer } from '../support/suite.js';

const RACERS = 20;

/** Sends `RACERS` DELETEs of one path at once; the statuses, sorted. */
async function race(server: ServerHandle, path: string): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: RACERS }, () => server.request('DELETE', path)));
  return answers.map((a) => a.status).sort();
}

const oneWinner = [204, ...Array<number>(RACERS - 1).fill(404)];

eachBackend('concurrent deletes', (backend) => {
  describe('soft and hard deletes with cascades and observers', () => {
    /** `model:op:id` of every change an observer saw. */
    const seen: string[] = [];
    const server = useServer(backend, {
      fixture: 'query',
      setup: (app) =>
        void app.observeWrites(
          { name: 'counter', observe: (_tx, change) => void seen.push(`${change.model.name}:${change.op}:${change.id}`) },
          // Owner itself is left out, so its own delete takes the plain path; only its cascades are observed.
          { models: ['Project', 'Task', 'Note', 'Badge'] },
        ),
    });

    const create = async (path: string, body: Record<string, unknown>) => {
      const res = await server.request('POST', path, { body });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };

    it('a hard delete with cascades and set-null wins once; every cascaded row is changed and observed once', async () => {
      const owner = await create('/owners', { name: 'O', tenant: 't' });
      const project = await create('/projects', { name: 'P', tenant: 't', ownerId: owner });
      const task = await create('/tasks', { title: 'T', tenant: 't', projectId: project });
      const badge = await create('/badges', { label: 'B', ownerId: owner });
      seen.length = 0;
      assert.deepEqual(await race(server, `/owners/${owner}`), oneWinner);
      assert.deepEqual(seen.sort(), [`Badge:update:${badge}`, `Project:delete:${project}`, `Task:delete:${task}`]);
      assert.equal((await server.app.db.raw('SELECT id FROM owners WHERE id = ?', [owner])).length, 0);
    });

    it('a soft delete with cascades wins once and writes its marker once', async () => {
      const owner = await create('/owners', { name: 'O', tenant: 't' });
      const project = await create('/projects', { name: 'P', tenant: 't', ownerId: owner });
      const tasks = [await create('/tasks', { title: 'T1', tenant: 't', projectId: project }), await create('/tasks', { title: 'T2', tenant: 't', projectId: project })];
      seen.length = 0;
      assert.deepEqual(await race(server, `/projects/${project}`), oneWinner);
      assert.deepEqual(seen.sort(), [`Project:delete:${project}`, ...tasks.map((id) => `Task:delete:${id}`)].sort());
      const [row] = await server.app.db.raw('SELECT deleted_at, updated_at FROM projects WHERE id = ?', [project]);
      assert.notEqual(row.deleted_at, null);
      // A second marking would have moved updated_at past deleted_at.
      assert.equal(String(row.updated_at), String(row.deleted_at));
    });

    it('a delete without relations wins once too', async () => {
      const owner = await create('/owners', { name: 'O', tenant: 't' });
      const badge = await create('/badges', { label: 'alone', ownerId: owner });
      seen.length = 0;
      assert.deepEqual(await race(server, `/badges/${badge}`), oneWinner);
      assert.deepEqual(seen, [`Badge:delete:${badge}`]);
    });
  });

  describe('with history', () => {
    const server = useServer(backend, { fixture: 'lifecycle' });

    it('a parent whose children keep history is deleted once, and each child gets one history row', async () => {
      const folder = (await server.request('POST', '/folders', { body: { name: 'F' } })).body.data.id;
      const page = (await server.request('POST', '/pages', { body: { title: 'P', folderId: folder } })).body.data.id;
      const memo = (await server.request('POST', '/memos', { body: { text: 'M', folderId: folder } })).body.data.id;
      assert.deepEqual(await race(server, `/folders/${folder}`), oneWinner);
      const operations = async (table: string, id: string) =>
        (await server.app.db.raw(`SELECT operation FROM ${table} WHERE record_id = ? ORDER BY version`, [id])).map((r) => r.operation);
      assert.deepEqual(await operations('page_history', page), ['create', 'delete']);
      assert.deepEqual(await operations('memo_history', memo), ['create', 'update']);
    });
  });
});
