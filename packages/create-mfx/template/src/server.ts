// The server, with the programmatic API. `npm start` runs the compiled
// dist/src/server.js with plain node; the test and the seed script import
// createApp() to start the same app on a port of their own.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type App, type ServerConfig, createServer, envToConfig, loadEnv, loadManifest } from '@mfx/runtime';
import setup from './app.js';
import { DATABASE_URL, openDatabase } from './database.js';

export interface AppOptions extends Partial<ServerConfig> {
  /** Database URL; default DB_WRITE_URL, else DATABASE_URL in database.ts. */
  database?: string;
  /** The manifest directory `npm run build` writes (default `.mfx`). */
  manifest?: string;
}

/**
 * The app with its models, database and hooks, ready to `start()`. Settings
 * come from the environment (PORT, DB_WRITE_URL, DB_READ_URL, ...) unless
 * given here.
 */
export async function createApp(options: AppOptions = {}): Promise<App> {
  const { database, manifest = '.mfx', ...config } = options;
  const env = loadEnv();
  const app = createServer({ ...envToConfig(env), documentation: { public: true }, ...config });
  app.register(loadManifest(manifest));
  app.setDB(openDatabase(database ?? env.dbWriteUrl ?? DATABASE_URL, app.registry, env.dbReadUrl));
  await setup(app);
  // In production every route must say who may call it (an authenticator, or public on purpose).
  if (process.env.NODE_ENV === 'production') app.validateProduction();
  return app;
}

// Run as the program (`node dist/src/server.js`): serve until SIGTERM or SIGINT, then drain.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const app = await createApp();
  const { url } = await app.start();
  console.log(`{{name}} serving ${url}`);
}
