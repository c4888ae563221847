// `npm run seed`: adds sample projects and tasks through the API, so hooks and
// validation apply as for any client. It starts the app on a free port of its
// own against the database `npm start` uses (DB_WRITE_URL, else DATABASE_URL
// in database.ts), so the dev server may be running or not.
import { silentLogger } from '@mfx/runtime';
import { writeKey } from './app.js';
import { createApp } from './server.js';

const samples = [
  {
    name: 'Website relaunch',
    description: 'New pages, new look',
    tasks: [
      { title: 'Write the copy', status: 'doing', priority: 2 },
      { title: 'Pick the photos', priority: 3 },
      { title: 'Go live', priority: 1, dueAt: '2030-01-15T09:00:00Z' },
    ],
  },
  {
    name: 'Quarterly report',
    description: null,
    tasks: [
      { title: 'Collect the numbers', status: 'done', priority: 2 },
      { title: 'Draft the summary', priority: 3 },
    ],
  },
];

const app = await createApp({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
const { url } = await app.start();
try {
  for (const { tasks, ...project } of samples) {
    const created = await send('POST', '/projects', project);
    if (created.status === 409) {
      console.log(`${project.name}: already there`);
      continue;
    }
    const id = expect(created, 201).data.id;
    for (const task of tasks) expect(await send('POST', '/tasks', { ...task, projectId: id }), 201);
    console.log(`${project.name}: created with ${tasks.length} tasks`);
  }
} finally {
  await app.stop();
}

async function send(method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': writeKey() },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

function expect(response: { status: number; body: any }, status: number): any {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}
