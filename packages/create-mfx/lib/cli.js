// @ts-check
// The create-mfx command: reads the arguments, writes the project, installs its
// dependencies (unless --no-install) and says what to do next.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DATABASES, ScaffoldError, scaffold } from './scaffold.js';

const USAGE = `usage: npm create mfx@latest <directory> [-- --db sqlite|postgres]
       create-mfx <directory> [--db sqlite|postgres] [--no-install]

Writes a new mfx project into <directory> (created; refused when not empty):
models in src/models.ts, hooks in src/app.ts, a seed script and a test.

options:
  --db sqlite|postgres   the database the project uses (default sqlite); only its driver is installed
  --no-install           write the files only; run npm install yourself
  -h, --help             print this help and exit
  -v, --version          print the version and exit
`;

/**
 * Runs the command; resolves with the exit code (0 done, 1 refused or the
 * install failed, 2 a usage mistake).
 * @param {string[]} argv
 * @param {{ cwd: string, out: NodeJS.WritableStream, err: NodeJS.WritableStream, env?: NodeJS.ProcessEnv }} io
 */
export async function main(argv, io) {
  const env = io.env ?? process.env;
  /** @type {ReturnType<typeof read>} */
  let args;
  try {
    args = read(argv);
  } catch (error) {
    io.err.write(`create-mfx: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.out.write(USAGE);
    return 0;
  }
  if (args.version) {
    io.out.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
    return 0;
  }
  // `npm create mfx my-app --db postgres` (without `--`) hands --db to npm, which passes it on as npm_config_db.
  const db = args.db ?? (env.npm_config_db || 'sqlite');
  if (!DATABASES.includes(/** @type {any} */ (db))) {
    io.err.write(`create-mfx: --db must be one of ${DATABASES.join(', ')}; got "${db}"\n`);
    return 2;
  }
  if (args.directory === undefined) {
    io.err.write(`create-mfx: name the directory to create, e.g. npm create mfx@latest my-app\n\n${USAGE}`);
    return 2;
  }

  const target = resolve(io.cwd, args.directory);
  const shown = relative(io.cwd, target) || '.';
  let files;
  try {
    files = scaffold(target, { db: /** @type {'sqlite' | 'postgres'} */ (db), shown });
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    io.err.write(`create-mfx: ${error.message}\n`);
    return 1;
  }
  io.out.write(`Created ${shown} (${db}): ${files.join(', ')}\n`);

  const manager = packageManager(env);
  if (!args.noInstall) {
    io.out.write(`\nInstalling dependencies with ${manager} install…\n`);
    const result = spawnSync(manager, ['install'], { cwd: target, stdio: 'inherit', shell: process.platform === 'win32' });
    if (result.status !== 0) {
      io.err.write(`create-mfx: ${manager} install failed in ${shown}; the files are written, fix the cause and run it again\n`);
      return 1;
    }
  }

  const run = manager === 'npm' ? 'npm run' : manager;
  const steps = [shown === '.' ? undefined : `cd ${shown}`, args.noInstall ? `${manager} install` : undefined, `${run} dev`].filter(Boolean);
  const pg =
    db === 'postgres'
      ? '\nThe app uses the PostgreSQL database named in src/database.ts (create it first), or the one DB_WRITE_URL names.\n'
      : '';
  io.out.write(`\nNext:\n${steps.map((s) => `  ${s}`).join('\n')}\n${pg}\nThen open http://localhost:8080/api/openapi.json, or read README.md in the project.\n`);
  return 0;
}

/** @param {string[]} argv */
function read(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      db: { type: 'string' },
      'no-install': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (positionals.length > 1) throw new Error(`one directory at a time; got ${positionals.map((p) => `"${p}"`).join(', ')}`);
  return { directory: positionals[0], db: values.db, noInstall: values['no-install'] === true, help: values.help === true, version: values.version === true };
}

/**
 * The package manager that ran us (npm, pnpm, yarn or bun), from npm_config_user_agent; npm otherwise.
 * @param {NodeJS.ProcessEnv} env
 */
function packageManager(env) {
  const agent = /^(npm|pnpm|yarn|bun)\//.exec(env.npm_config_user_agent ?? '');
  return agent?.[1] ?? 'npm';
}
