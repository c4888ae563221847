// @ts-check
// Writes a new project from the template: the files under template/ (a name
// `x.sqlite.ts` or `x.postgres.ts` is the variant of `x.ts` for one database)
// with {{token}}s filled in, and a package.json built here.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { thirdParty } from './versions.js';

export const DATABASES = /** @type {const} */ (['sqlite', 'postgres']);

/** @typedef {(typeof DATABASES)[number]} Database */

const templateDir = fileURLToPath(new URL('../template/', import.meta.url));
const ownVersion = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/** A refusal that the command prints as one line. */
export class ScaffoldError extends Error {}

/**
 * An npm package name from a directory name: lower case, URL-safe characters,
 * no leading dot or underscore.
 * @param {string} directory
 */
export function packageName(directory) {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return name || 'mfx-app';
}

/**
 * What stops a project from being written into `target`: a file of that name,
 * or a directory that is not empty. Undefined when the way is clear.
 * @param {string} target
 * @param {string} [shown] how the message names it (default `target`)
 */
export function obstacle(target, shown = target) {
  if (!existsSync(target)) return undefined;
  if (!statSync(target).isDirectory()) return `${shown} exists and is not a directory`;
  const entries = readdirSync(target);
  if (entries.length === 0) return undefined;
  const listed = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, … (${entries.length} entries)` : '');
  return `${shown} is not empty (it holds ${listed}); name a new directory, or empty this one first`;
}

/**
 * The package.json of a new project.
 * @param {string} name
 * @param {Database} db
 */
export function packageJson(name, db) {
  const mfx = `^${ownVersion}`;
  // The runtime loads the driver of the database it opens; nothing else is installed.
  const drivers = db === 'sqlite' ? ['better-sqlite3'] : ['pg', 'pg-cursor'];
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20' },
    scripts: {
      dev: 'node scripts/dev.mjs',
      build: 'tspc -p tsconfig.json',
      // A young generation of 2 MB semi-spaces instead of V8's 16 MB: about 10 MB less RSS under load (docs/deployment.md, Memory).
      start: 'node --max-semi-space-size=2 dist/src/server.js',
      seed: 'npm run build && node dist/src/seed.js',
      test: 'npm run build && node --test dist/test/',
    },
    dependencies: {
      '@mfx/runtime': mfx,
      ...Object.fromEntries(drivers.map((name) => [name, thirdParty[/** @type {keyof typeof thirdParty} */ (name)]])),
    },
    devDependencies: {
      '@mfx/compiler': mfx,
      '@types/node': thirdParty['@types/node'],
      'ts-patch': thirdParty['ts-patch'],
      typescript: thirdParty.typescript,
    },
    // npm 11 asks which install scripts may run: the SQLite addon's download (or build), and esbuild's (tsx, for `npm run dev`).
    allowScripts: db === 'sqlite' ? { 'better-sqlite3': true, esbuild: true } : { esbuild: true },
  };
}

/**
 * Writes a new project into `target` (created when missing; refused when it
 * holds anything) and returns the files written, relative to it, sorted.
 *
 * @example
 * scaffold('my-app', { db: 'postgres' }); // ['.gitignore', 'README.md', 'package.json', ...]
 * @param {string} target
 * @param {{ db: Database, name?: string, shown?: string }} options `shown`: how messages name the directory
 */
export function scaffold(target, options) {
  const problem = obstacle(target, options.shown);
  if (problem) throw new ScaffoldError(problem);
  const name = options.name ?? packageName(target);
  const dbName = name.replace(/[^a-z0-9_]+/g, '_');
  const tokens = {
    name,
    dbName,
    devDatabase: options.db === 'sqlite' ? 'sqlite:./app.db' : `postgres://postgres@127.0.0.1:5432/${dbName}`,
    devApiKey: `dev-${randomBytes(18).toString('base64url')}`,
    mfxVersion: ownVersion,
  };
  /** @type {Map<string, string>} */
  const files = new Map();
  for (const source of walk(templateDir)) {
    const path = outputPath(relative(templateDir, source), options.db);
    if (path !== undefined) files.set(path, fill(readFileSync(source, 'utf8'), tokens, source));
  }
  files.set('package.json', `${JSON.stringify(packageJson(name, options.db), null, 2)}\n`);

  mkdirSync(target, { recursive: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), text);
  }
  return [...files.keys()].sort();
}

/**
 * Where a template file goes, or undefined when it belongs to the other database.
 * `gitignore` is stored without its dot because npm leaves `.gitignore` files out of packages.
 * @param {string} path
 * @param {Database} db
 */
function outputPath(path, db) {
  const variant = /\.(sqlite|postgres)(\.[^./]+)$/.exec(path);
  if (variant && variant[1] !== db) return undefined;
  const out = variant ? path.slice(0, variant.index) + variant[2] : path;
  return out.replace(/(^|\/)gitignore$/, '$1.gitignore');
}

/**
 * @param {string} text
 * @param {Record<string, string>} tokens
 * @param {string} source
 */
function fill(text, tokens, source) {
  return text.replace(/\{\{(\w+)\}\}/g, (_, token) => {
    if (!(token in tokens)) throw new Error(`template ${source} uses an unknown token {{${token}}}`);
    return tokens[token];
  });
}

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}
