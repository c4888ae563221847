import { existsSync, statSync } from 'node:fs';
import { ConfigError, type Hook } from '@mfx/runtime';

/** The panel's options (DESIGN.md: `admin({ path?, title?, auth?, allowUnauthenticated?, models?, readOnly?, templates?, secure? })`). */
export interface AdminOptions {
  /** Where the panel is mounted (default `/admin`). */
  path?: string;
  /** The title in the header and the page titles (default `Admin`). */
  title?: string;
  /**
   * The gate: Auth-step hooks run on every panel request (except its static
   * files) before anything else, such as `[bearer({ secret })]`,
   * `[apiKey({ keys })]` or, for browsers, `[basicAuth({ verify })]`, with
   * gates after them (`requireRole('admin')`). The identity they find is the
   * one every API call of the page is made as.
   */
  auth?: Hook[];
  /** Mount without a gate (development only): every visitor acts anonymously. Default false. */
  allowUnauthenticated?: boolean;
  /** Names of the models to show; empty or absent: every served model. Others stay served by the API. */
  models?: string[];
  /** No create, edit or delete routes. Default false. */
  readOnly?: boolean;
  /** A directory whose layout.html, dashboard.html, list.html, detail.html, form.html or error.html replace the built-in ones. */
  templates?: string;
  /** The CSRF cookie's Secure attribute (default true; false for plain-HTTP development). */
  secure?: boolean;
}

export interface ResolvedAdminOptions {
  path: string;
  title: string;
  auth: Hook[];
  allowUnauthenticated: boolean;
  models: string[] | null;
  readOnly: boolean;
  templates: string | null;
  secure: boolean;
}

export const DEFAULT_TITLE = 'Admin';

/** Checks the options and fills in the defaults; a panel without a gate (and without allowUnauthenticated) is refused here. */
export function resolveAdminOptions(options: AdminOptions = {}): ResolvedAdminOptions {
  if (options === null || typeof options !== 'object') throw new ConfigError('admin(options) takes an object such as { auth: [bearer({ secret })] }');
  const path = (options.path ?? '/admin').replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) throw new ConfigError(`admin: path must be a path such as /admin, got ${JSON.stringify(options.path)}`);
  const auth = options.auth ?? [];
  if (!Array.isArray(auth) || auth.some((hook) => typeof hook !== 'function')) throw new ConfigError('admin: auth must be a list of Auth-step hooks, such as [bearer({ secret })]');
  const allowUnauthenticated = options.allowUnauthenticated === true;
  if (auth.length === 0 && !allowUnauthenticated) {
    throw new ConfigError('admin: the panel needs a gate: pass auth: [bearer(...)] (or apiKey(...), basicAuth(...)), or allowUnauthenticated: true for local development only');
  }
  if (options.models !== undefined && (!Array.isArray(options.models) || options.models.some((m) => typeof m !== 'string'))) {
    throw new ConfigError('admin: models must be a list of model names, such as ["Post", "User"]');
  }
  if (options.templates !== undefined && !(existsSync(options.templates) && statSync(options.templates).isDirectory())) {
    throw new ConfigError(`admin: templates must be a directory, got ${JSON.stringify(options.templates)}`);
  }
  return {
    path,
    title: typeof options.title === 'string' && options.title.trim() !== '' ? options.title : DEFAULT_TITLE,
    auth,
    allowUnauthenticated,
    models: options.models && options.models.length > 0 ? options.models : null,
    readOnly: options.readOnly === true,
    templates: options.templates ?? null,
    secure: options.secure !== false,
  };
}
