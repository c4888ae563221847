// Shared by the create-mfx tests: running commands and the scaffolded app's
// server in child processes, and the typed client's types.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import openapiTS, { astToString } from 'openapi-typescript';
import { type Backend, freshSchema } from '../support/backends.js';

export const root = resolve(import.meta.dirname, '../..');
export const createMfxBin = join(root, 'packages/create-mfx/bin/create-mfx.js');
export const typedClientDir = join(import.meta.dirname, 'typed-client');

/**
 * How this repository runs a child from the TypeScript sources (scripts/sources.mjs):
 * tsx, and the `mfx-source` export condition so `@mfx/runtime` resolves to `src/`
 * instead of the built `dist/`. `SOURCE_OPTIONS` is the same for the TypeScript compiler.
 */
export const SOURCE_FLAGS = ['--conditions=mfx-source', '--import', 'tsx'];
export const SOURCE_OPTIONS = { customConditions: ['mfx-source'] };

/** The environment of a child process: this one's, without what would tie the child to this test runner. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, NODE_OPTIONS: _options, ...inherited } = process.env;
  return { ...inherited, ...extra };
}

export interface Ran {
  code: number | null;
  output: string;
}

/** Runs a command to its end; resolves with its exit code and its stdout and stderr together. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? childEnv() });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

/** Like `run`, failing the test with the output when the exit code is not 0. */
export async function runOk(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  const ran = await run(command, args, options);
  assert.equal(ran.code, 0, `${command} ${args.join(' ')} in ${options.cwd} exited ${ran.code}:\n${ran.output}`);
  return ran.output;
}

export interface RunningApp {
  /** The API's base URL, e.g. http://localhost:41234/api. */
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then the exit code once it has exited. */
  stop(): Promise<number | null>;
}

/**
 * Starts the scaffolded app's server (`node [loader] dist/src/server.js` or
 * `src/server.ts`) on a free port and resolves once it prints the URL it serves.
 */
export function startApp(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<RunningApp> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: childEnv({ PORT: '0', ...options.env }) });
  let output = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      output += `${line}\n`;
      const serving = / serving (http:\/\/\S+)$/.exec(line);
      if (serving?.[1]) {
        done({
          url: serving[1],
          child,
          output: () => output,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => fail(new Error(`the app exited (${code}) before serving:\n${output}`)));
  });
}

/** A database for one scaffolded app on `backend`: a schema of its own on PostgreSQL, a file in `dir` on SQLite. */
export async function appDatabase(backend: Backend, dir: string, name = 'app'): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend.name === 'postgres') return freshSchema();
  return { url: `sqlite:${join(dir, `${name}.db`)}`, drop: async () => {} };
}

/** The key the scaffolded app's writes need (its development key). */
export function devApiKey(dir: string): string {
  const key = /const DEV_API_KEY = '([^']+)'/.exec(readFileSync(join(dir, 'src/app.ts'), 'utf8'))?.[1];
  assert.ok(key, 'src/app.ts declares DEV_API_KEY');
  return key;
}

/**
 * Generates the typed client's types from the app's live document, as a user
 * would (request fields with a default stay optional), and compares them with
 * the committed typed-client/app.d.ts; UPDATE_GOLDEN=1 rewrites that file.
 */
export async function checkClientTypes(url: string): Promise<void> {
  const doc = await (await fetch(`${url}/openapi.json`)).json();
  const generated = astToString(await openapiTS(doc, { defaultNonNullable: false }));
  const file = join(typedClientDir, 'app.d.ts');
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, generated);
  assert.ok(
    generated === readFileSync(file, 'utf8'),
    "the scaffolded app's document changed: run `UPDATE_GOLDEN=1 npm test -- test/create-mfx/scaffolded-app.test.ts`, read the diff of typed-client/app.d.ts, and fix app-client.ts if it no longer type-checks",
  );
}
