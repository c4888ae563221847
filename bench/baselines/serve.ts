// What both hand-written peers' entries share: their flags, the line the bench
// harness waits for, and a clean exit on SIGTERM.
import { routesFor, type BlogRoutes } from './blog-routes.js';

/** `--db X --port N` → the routes on that database and the port. */
export async function peerOptions(): Promise<{ routes: BlogRoutes; port: number }> {
  const flags = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i += 2) flags.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
  return { routes: await routesFor(flags.get('db')!), port: Number(flags.get('port') ?? 0) };
}

/** Prints the URL the harness waits for; on SIGTERM closes the listener, then the database, and exits. */
export function announce(name: string, port: number, close: () => Promise<unknown>): void {
  console.log(`${name} serving http://127.0.0.1:${port}/api`);
  process.once('SIGTERM', () => void close().then(() => process.exit(0)));
}
