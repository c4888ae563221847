// `npm run dev`: compiles src/models.ts and recompiles on every change
// (mfx build --watch), and serves the API with the hooks of src/app.ts,
// reloading whenever the manifest changes (mfx serve --watch). Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = join('node_modules', '.bin', process.platform === 'win32' ? 'mfx.cmd' : 'mfx');
// The same database as `npm start`, unless DB_WRITE_URL names another (mfx serve reads it).
const database = process.env.DB_WRITE_URL ? [] : ['--db', '{{devDatabase}}'];

const mfx = (args) => spawn(bin, args, { stdio: 'inherit', shell: process.platform === 'win32' });

// The first build has to finish before the server can load the manifest.
const first = mfx(['build', 'src/models.ts']);
first.on('exit', (code) => {
  if (code !== 0) {
    process.exitCode = code ?? 1;
    return;
  }
  const children = [mfx(['build', 'src/models.ts', '--watch']), mfx(['serve', '--watch', '--app', 'src/app.ts', ...database])];
  const stop = () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
  for (const child of children) {
    child.on('exit', (code) => {
      if (code) process.exitCode = code;
      stop();
    });
  }
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
