import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

/** The pages a `templates` directory may replace, each by a file of this name. */
export const TEMPLATE_NAMES = ['layout', 'dashboard', 'list', 'detail', 'form', 'error'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The page renderer: eta with auto-escaping on (every `<%= %>` is
 * HTML-escaped), templates read once at boot: the built-in ones, each
 * replaced by the file of the same name in `templates` when there is one.
 * A template names the layout with `<% layout('@layout') %>`.
 */
export class Pages {
  private readonly eta = new Eta({ autoEscape: true, cache: true, autoTrim: [false, 'nl'] });

  constructor(overrides: string | null) {
    for (const name of TEMPLATE_NAMES) {
      const own = overrides ? join(overrides, `${name}.html`) : null;
      const file = own && existsSync(own) ? own : join(PACKAGE_ROOT, 'templates', `${name}.html`);
      this.eta.loadTemplate(`@${name}`, readFileSync(file, 'utf8'));
    }
  }

  render(name: TemplateName, data: object): string {
    return this.eta.render(`@${name}`, data);
  }
}

/** One file of the asset bundle, held in memory with its type and a content hash for cache busting. */
export interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

/** The files under `static/`, read once; only these names are ever served. */
export function loadAssets(): Map<string, Asset> {
  const dir = join(PACKAGE_ROOT, 'static');
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) });
  }
  return assets;
}
