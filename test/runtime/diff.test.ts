// `mfx diff OLD NEW`: the schema and API changes between two manifests, breaking ones marked, for CI.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { build } from '@mfx/compiler';
import { usage } from '../../runtime/src/cli/args.js';
import { tempProject } from '../compiler/support.js';
import { runMfx } from '../support/cli.js';


const OLD = `import type { Model } from '@mfx/runtime';

/** @mfx versioned */
export interface Post extends Model {
  /** @mfx required, filterable, sortable */
  title: string;
  /** @mfx enum:draft|published|archived, filterable */
  status: string;
  views: number;
  /** @mfx filterable */
  legacy: string | null;
  authorId: string | null;
  author?: Author;
}

export interface Author extends Model {
  /** @mfx required */
  name: string;
}

export interface Tag extends Model {
  name: string;
}
`;

/** Breaking: the history route and Tag's routes go, title is renamed and no longer filterable, an enum narrows, a type changes, a required field appears, a field goes. */
const BREAKING = `import type { Model } from '@mfx/runtime';

export interface Post extends Model {
  /** @mfx required, sortable, renamed_from:title */
  headline: string;
  /** @mfx enum:draft|published, filterable */
  status: string;
  /** @mfx int */
  views: number;
  /** @mfx required */
  category: string;
  authorId: string | null;
  author?: Author;
}

export interface Author extends Model {
  /** @mfx required */
  name: string;
  bio: string | null;
}

export interface Label extends Model {
  name: string;
}
`;

/** Only additions: a nullable field, a wider enum, a model. */
const ADDITIVE = OLD.replace('draft|published|archived', 'draft|published|archived|scheduled').replace('  name: string;\n}\n\nexport interface Tag', '  name: string;\n  bio: string | null;\n}\n\nexport interface Tag') + '\nexport interface Label extends Model {\n  name: string;\n}\n';

const project = tempProject({ 'old.ts': OLD, 'breaking.ts': BREAKING, 'additive.ts': ADDITIVE, 'broken.json': '{ "format": 1, ' });
before(() => {
  for (const name of ['old', 'breaking', 'additive']) {
    const built = build({ entries: [project.path(`${name}.ts`)], outDir: project.path(name) });
    assert.ok(built.ok, built.diagnostics.map((d) => d.message).join('\n'));
  }
  writeFileSync(project.path('other.json'), JSON.stringify({ format: 99, models: [] }));
});
after(() => project.remove());

async function diff(...args: string[]) {
  const { code, stdout, stderr } = await runMfx(['diff', ...args], { cwd: project.dir });
  return { code, stdout, stderr };
}

const BREAKING_REPORT = `schema:
    authors.bio: column added (string, nullable)
    labels: table added (model Label)
    posts.headline: column renamed from title (renamed_from): the migration renames it, keeping its values
  ! posts.views: type number → integer: the migration never changes a column's type; convert it by hand before serving (mfx migrate --plan prints the SQL)
    posts.category: column added (string, NOT NULL DEFAULT "")
    posts.legacy: column removed from the model; it is kept with its values (the migration never drops columns)
    post_history: history table no longer written (model Post is not versioned now); it is kept with its entries
    tags: table no longer used by the models (model Tag was removed or moved); it is kept with its rows: the migration never drops tables
api:
    Author.bio: field added
    Label: model added with routes under /labels
  ! GET /posts/:id/history: route removed (model Post)
  ! Post.headline: renamed from title: clients must read and write headline
  ! Post.headline: no longer filterable: filters on it are refused with 400
  ! Post.status: enum narrowed: archived no longer accepted
  ! Post.views: type number → integer
  ! Post.category: new field required on create: creates that leave it out are refused with 422
  ! Post.legacy: field removed: no longer in responses; values sent for it are dropped; filters on it are refused
  ! Tag: model removed: its 5 routes under /tags are gone
18 changes, 9 breaking (marked !)
`;

describe('mfx diff', () => {
  it('reports schema and API changes, marks the breaking ones, and exits 1', async () => {
    assert.deepEqual(await diff('old', 'breaking'), { code: 1, stdout: BREAKING_REPORT, stderr: '' });
  });

  it('reads manifest.json files as well as directories', async () => {
    assert.deepEqual(await diff('old/manifest.json', 'breaking/manifest.json'), { code: 1, stdout: BREAKING_REPORT, stderr: '' });
  });

  it('--json gives the same changes as data', async () => {
    const run = await diff('old', 'breaking', '--json');
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as { breaking: boolean; changes: { area: string; breaking: boolean; subject: string; change: string }[] };
    assert.equal(report.breaking, true);
    assert.equal(report.changes.length, 18);
    assert.equal(report.changes.filter((c) => c.breaking).length, 9);
    assert.deepEqual(report.changes.find((c) => c.subject === 'Post.status'), { area: 'api', breaking: true, subject: 'Post.status', change: 'enum narrowed: archived no longer accepted' });
    assert.deepEqual(report.changes.find((c) => c.subject === 'GET /posts/:id/history'), { area: 'api', breaking: true, subject: 'GET /posts/:id/history', change: 'route removed (model Post)' });
  });

  it('exits 0 when nothing breaks, listing the additions', async () => {
    assert.deepEqual(await diff('old', 'additive'), {
      code: 0,
      stdout: `schema:
    authors.bio: column added (string, nullable)
    labels: table added (model Label)
api:
    Author.bio: field added
    Label: model added with routes under /labels
    Post.status: enum widened: scheduled accepted, and may appear in responses
5 changes, 0 breaking
`,
      stderr: '',
    });
  });

  it('says so when nothing changed', async () => {
    assert.deepEqual(await diff('old', 'old/manifest.json'), { code: 0, stdout: 'no changes\n', stderr: '' });
    assert.deepEqual(await diff('old', 'old', '--json'), { code: 0, stdout: `${JSON.stringify({ breaking: false, changes: [] }, null, 2)}\n`, stderr: '' });
  });

  it('exits 2 with usage on a usage error, 0 on --help', async () => {
    const text = usage('diff');
    assert.equal(text.split('\n')[0], 'usage: mfx diff OLD_MANIFEST NEW_MANIFEST [--json]');
    assert.deepEqual(await diff('--help'), { code: 0, stdout: text, stderr: '' });
    assert.deepEqual(await diff('old'), { code: 2, stdout: '', stderr: `mfx diff: name two manifests, the old one and the new one (got 1)\n\n${text}` });
    assert.deepEqual(await diff('old', 'breaking', 'additive'), { code: 2, stdout: '', stderr: `mfx diff: name two manifests, the old one and the new one (got 3)\n\n${text}` });
    assert.deepEqual(await diff('old', 'breaking', '--yaml'), { code: 2, stdout: '', stderr: `mfx diff: unknown flag --yaml (known: --json)\n\n${text}` });
    assert.deepEqual(await diff('old', 'missing'), { code: 2, stdout: '', stderr: `mfx diff: no manifest at missing; name a directory mfx build wrote, or its manifest.json\n\n${text}` });
    const broken = await diff('old', 'broken.json');
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /^mfx diff: broken\.json is not valid JSON \(/);
    assert.deepEqual(await diff('other.json', 'old'), { code: 2, stdout: '', stderr: `mfx diff: other.json is not an mfx manifest of format 1; rebuild it with the matching mfx build\n\n${text}` });
  });
});
