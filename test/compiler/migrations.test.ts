// What the compiler checks for migrations: `renamed_from:` and its rules, two models on one table as a build
// error at both declarations, and `mfx build --strict` turning warnings into errors.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { modelTable } from '@mfx/runtime/sql';
import { runMfx } from '../support/cli.js';
import { compile, fieldOf, locate, seen, tempProject } from './support.js';

const renames = `import type { Model } from '@mfx/runtime';

export interface Post extends Model {
  /** @mfx renamed_from:title, unique */
  headline: string;
  /** @mfx db:body_text, renamed_from:body */
  body: string;
  /** @mfx encrypted, unique, renamed_from:old_secret */
  secret: string;
}
`;

const wrong = `import type { Model } from '@mfx/runtime';

export interface Note extends Model {
  /** @mfx renamed_from:body */
  title: string;
  body: string;
  /** @mfx renamed_from:gone */
  first: string;
  /** @mfx renamed_from:gone */
  second: string;
  /** @mfx renamed_from:own */
  own: string;
  /** @mfx renamed_from */
  bare: string;
  /** @mfx renamed_from:created_at */
  stamp: string;
}
`;

const tables = `import type { Model } from '@mfx/runtime';

export interface Post extends Model {
  title: string;
}

/** @mfx table:posts */
export interface Article extends Model {
  name: string;
}

/** @mfx versioned */
export interface Page extends Model {
  text: string;
}

/** @mfx table:page_history */
export interface PageLog extends Model {
  text: string;
}
`;

const misspelt = `import type { Model } from '@mfx/runtime';

export interface Memo extends Model {
  /** @mfx required, sortabel */
  text: string;
}
`;

const project = tempProject({ 'renames.ts': renames, 'wrong.ts': wrong, 'tables.ts': tables, 'misspelt.ts': misspelt });
after(() => project.remove());

describe('renamed_from', () => {
  it('records the old column in the manifest, for the field and for the blind index of an encrypted unique field', () => {
    const result = compile([project.path('renames.ts')], { cwd: project.dir });
    assert.deepEqual(seen(result.diagnostics), []);
    assert.equal(fieldOf(result, 'Post', 'headline').renamedFrom, 'title');
    assert.equal(fieldOf(result, 'Post', 'body').renamedFrom, 'body');
    const fields = result.manifest!.models[0].fields;
    assert.deepEqual(
      fields.filter((f) => f.renamedFrom).map((f) => [f.name, f.column, f.renamedFrom]),
      [
        ['headline', 'headline', 'title'],
        ['body', 'body_text', 'body'],
        ['secret', 'secret', 'old_secret'],
      ],
    );
    assert.deepEqual(Object.keys(fields.find((f) => f.name === 'headline')!).slice(0, 4), ['name', 'column', 'renamedFrom', 'type'], 'next to the column');
    assert.equal(fields.find((f) => f.name === 'created_at')!.renamedFrom, undefined);
    const table = modelTable(result.manifest!.models[0], new Map([['Post', 'posts']]));
    assert.deepEqual(
      table.columns.filter((c) => c.renamedFrom).map((c) => [c.name, c.renamedFrom]),
      [
        ['headline', 'title'],
        ['body_text', 'body'],
        ['secret', 'old_secret'],
        ['secret_hmac', 'old_secret_hmac'],
      ],
      'the migration renames the blind index with its field',
    );
  });

  it('refuses an old column a field still uses, one old column on two fields, the field\'s own column and no value', () => {
    const file = project.path('wrong.ts');
    const at = (needle: string) => locate(file, needle);
    const result = compile([file], { cwd: project.dir });
    assert.deepEqual(seen(result.diagnostics, file), [
      { severity: 'error', ...at('title:'), text: "Note.title: 'renamed_from:body' names the column of Note.body. A column can be renamed only once no field uses it; name the column this field had before" },
      { severity: 'error', ...at('first:'), text: "Note.first: 'renamed_from:gone' is also on Note.second. One old column becomes one new column; keep the directive on one of the fields" },
      { severity: 'error', ...at('second:'), text: "Note.second: 'renamed_from:gone' is also on Note.first. One old column becomes one new column; keep the directive on one of the fields" },
      { severity: 'error', ...at('own:'), text: "Note.own: 'renamed_from:own' names the field's own column. Name the column own had before, or remove the directive once every database is migrated" },
      { severity: 'error', ...at('bare:'), text: "Note.bare: 'renamed_from' is invalid: 'renamed_from' needs a value. Write 'renamed_from:OLD'" },
      {
        severity: 'error',
        ...at('stamp:'),
        text: "Note.stamp: 'renamed_from:created_at' names the column of the base column created_at. A column can be renamed only once no field uses it; name the column this field had before",
      },
    ]);
    assert.equal(result.ok, false);
  });
});

describe('one table, one model', () => {
  it('two models on one table, or on a versioned model\'s history table, are errors at both declarations', () => {
    const file = project.path('tables.ts');
    const at = (needle: string) => locate(file, needle);
    const result = compile([file], { cwd: project.dir });
    assert.deepEqual(seen(result.diagnostics, file), [
      { severity: 'error', ...at('Post extends'), text: "Post: table 'posts' is also the table of model Article. Give one of them another table with table:NAME" },
      { severity: 'error', ...at('Article extends'), text: "Article: table 'posts' is also the table of model Post. Give one of them another table with table:NAME" },
      {
        severity: 'error',
        ...at('Page extends'),
        text: "Page: its history table 'page_history' is also the table of model PageLog. Give the model another table with table:NAME, or rename one of the models",
      },
      {
        severity: 'error',
        ...at('PageLog extends'),
        text: "PageLog: table 'page_history' is also the history table of versioned model Page. Give the model another table with table:NAME, or rename one of the models",
      },
    ]);
  });

  it('mfx build prints both places as file:line:col and writes nothing', async () => {
    const run = await runMfx(['build', 'tables.ts', '--out', 'tables-out'], { cwd: project.dir });
    const [post, article] = [locate(project.path('tables.ts'), 'Post extends'), locate(project.path('tables.ts'), 'Article extends')];
    assert.equal(run.code, 1);
    const lines = run.stderr.split('\n');
    assert.equal(lines[0], `tables.ts:${post.line}:${post.col}: error: Post: table 'posts' is also the table of model Article. Give one of them another table with table:NAME`);
    assert.equal(lines[1], `tables.ts:${article.line}:${article.col}: error: Article: table 'posts' is also the table of model Post. Give one of them another table with table:NAME`);
    assert.equal(lines.at(-2), 'mfx build: 4 errors, nothing written');
    assert.ok(!existsSync(project.path('tables-out')));
  });
});

describe('mfx build --strict', () => {
  const build = (...args: string[]) => runMfx(['build', 'misspelt.ts', ...args], { cwd: project.dir });
  const text = locate(project.path('misspelt.ts'), 'text:');
  const message = `Memo.text: unknown directive 'sortabel' is ignored. Did you mean 'sortable'?`;

  it('a misspelt directive is a warning by default: the build succeeds', async () => {
    assert.deepEqual(await build('--out', 'lenient'), { code: 0, signal: null, stdout: 'mfx build: 1 model → lenient\n', stderr: `misspelt.ts:${text.line}:${text.col}: warning: ${message}\n` });
    assert.ok(existsSync(project.path('lenient/manifest.json')));
  });

  it('--strict turns it into an error: exit 1, nothing written', async () => {
    assert.deepEqual(await build('--out', 'strict', '--strict'), {
      code: 1,
      signal: null,
      stdout: '',
      stderr: `misspelt.ts:${text.line}:${text.col}: error: ${message}\nmfx build: 1 error (--strict: warnings count as errors), nothing written\n`,
    });
    assert.ok(!existsSync(project.path('strict')));
  });

  it('--strict takes no value', async () => {
    const run = await build('--strict=yes');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^mfx build: --strict takes no value\n/);
  });
});
