// Starts the app on a free port and talks HTTP to it, as a client would.
// `npm test` builds first, then runs the compiled tests with node:test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, silentLogger } from '@mfx/runtime';
import { writeKey } from '../src/app.js';
import { TEST_DATABASE_URL } from '../src/database.js';
import { createApp } from '../src/server.js';

interface Answer {
  status: number;
  body: any;
}

describe('{{name}} API', () => {
  let app: App;
  let url = '';

  before(async () => {
    app = await createApp({
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      handleSignals: false,
      database: process.env.TEST_DB_URL ?? TEST_DATABASE_URL,
    });
    url = (await app.start()).url;
  });
  after(() => app.stop());

  async function call(method: string, path: string, body?: unknown, key: string | null = writeKey()): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key !== null) headers['x-api-key'] = key;
    const response = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A project with a name no other test uses. */
  async function newProject(name = `Project ${Math.random().toString(36).slice(2)}`): Promise<any> {
    const created = await call('POST', '/projects', { name });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.data;
  }

  it('creates a project, its slug set by the hook from the name', async () => {
    const stamp = Date.now();
    const project = await newProject(`Q3 Launch ${stamp}!`);
    assert.equal(project.name, `Q3 Launch ${stamp}!`);
    assert.equal(project.slug, `q3-launch-${stamp}`);
    assert.equal(project.archived, false);

    const read = await call('GET', `/projects/${project.id}`, undefined, null);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, project);
  });

  it('answers 409 for a second project with the same slug', async () => {
    const project = await newProject();
    const again = await call('POST', '/projects', { name: project.name });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
  });

  it('refuses a write without the API key and writes nothing', async () => {
    const name = `Nobody ${Math.random().toString(36).slice(2)}`;
    const refused = await call('POST', '/projects', { name }, null);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'UNAUTHORIZED');
    const wrongKey = await call('POST', '/projects', { name }, 'not-the-key-0123456789');
    assert.equal(wrongKey.status, 401);

    const listed = await call('GET', `/projects?filter=name:eq:${encodeURIComponent(name)}`, undefined, null);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.meta.total, 0);
  });

  it('answers 422 naming every invalid field', async () => {
    const project = await newProject();
    const invalid = await call('POST', '/tasks', { projectId: project.id, status: 'later', priority: 9 });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(invalid.body.error.details.map((d: { field: string }) => d.field).sort(), ['priority', 'status', 'title']);
  });

  it('lists a project tasks with filters, sort and the project included', async () => {
    const project = await newProject();
    for (const [title, priority] of [['Plan', 2], ['Build', 1], ['Ship', 3]] as const) {
      assert.equal((await call('POST', '/tasks', { title, priority, projectId: project.id })).status, 201);
    }
    const listed = await call('GET', `/tasks?filter=projectId:eq:${project.id}&filter=priority:lte:2&sort=priority:asc&include=project`, undefined, null);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((t: { title: string }) => t.title), ['Build', 'Plan']);
    assert.equal(listed.body.data[0].status, 'todo');
    assert.equal(listed.body.data[0].project.name, project.name);

    const withTasks = await call('GET', `/projects/${project.id}?include=tasks`, undefined, null);
    assert.equal(withTasks.body.data.tasks.length, 3);
  });

  it('deletes a project and its tasks with it', async () => {
    const project = await newProject();
    const task = (await call('POST', '/tasks', { title: 'Temporary', projectId: project.id })).body.data;
    assert.equal((await call('DELETE', `/projects/${project.id}`)).status, 204);
    assert.equal((await call('GET', `/tasks/${task.id}`, undefined, null)).status, 404);
  });

  it('publishes its OpenAPI document', async () => {
    const doc = await call('GET', '/openapi.json', undefined, null);
    assert.equal(doc.status, 200);
    assert.ok(doc.body.paths['/projects']);
    assert.ok(doc.body.paths['/tasks/{id}']);
  });
});
