import type { App, Plugin } from '@mfx/runtime';
import { type AdminOptions, resolveAdminOptions } from './options.js';
import { AdminPanel } from './panel.js';

export type { AdminOptions } from './options.js';
export { type BasicAuthOptions, basicAuth } from './basic-auth.js';
export { CSRF_COOKIE, CSRF_FIELD } from './csrf.js';
export { PAGE_SIZE } from './panel.js';

/**
 * The admin panel as a plugin: pages under `path` (default `/admin`) that
 * list, show, create, edit and delete the records of every served model
 * (or of `models`), reading and writing through the service's own API in
 * this process, as the caller the `auth` gate identified. Mounting it
 * without a gate and without `allowUnauthenticated` throws.
 *
 * @example
 * app.plugin(admin({ auth: [bearer({ secret }), requireRole('admin')], title: 'Blog admin' }));
 */
export function admin(options: AdminOptions = {}): Plugin<App> {
  const resolved = resolveAdminOptions(options);
  const plugin = (app: App): void => {
    const panel = new AdminPanel(app, resolved);
    app.httpMiddleware(panel.middleware);
    if (resolved.allowUnauthenticated && resolved.auth.length === 0) app.log.warn({ path: resolved.path }, 'the admin panel is mounted without a gate: anyone who reaches it acts anonymously (allowUnauthenticated)');
  };
  Object.defineProperty(plugin, 'name', { value: 'admin' });
  return plugin;
}
