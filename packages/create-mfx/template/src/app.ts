// Hooks: what runs around the generated routes. `npm run dev` hands this file
// to `mfx serve --app`; createApp() in server.ts (npm start, the seed script
// and the test) calls the same function.
import { type App, type Hook, allowAnonymous, apiKey, transaction } from '@mfx/runtime';

/** A key for your machine only; anywhere else set API_KEY (16 or more characters). */
const DEV_API_KEY = '{{devApiKey}}';

/** The key every write must send in the X-API-Key header. */
export function writeKey(): string {
  const key = process.env.API_KEY ?? (process.env.NODE_ENV === 'production' ? undefined : DEV_API_KEY);
  if (!key) throw new Error('set API_KEY: with NODE_ENV=production the development key is not used');
  return key;
}

export default function setup(app: App): void {
  // Anyone may read; creating, changing and deleting need the API key.
  app.use('auth', allowAnonymous(), { ops: ['list', 'read'] });
  app.use('auth', apiKey({ keys: { [writeKey()]: { userId: 'api-client', roles: ['writer'] } } }), {
    ops: ['create', 'update', 'delete'],
  });

  // Every write runs in one transaction with whatever its hooks do.
  app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
  app.use('service', slugFromName, { models: ['Project'], ops: ['create'] });
}

/**
 * Before a project is created, after validation: its slug comes from its name
 * ("Q3 Launch!" becomes "q3-launch"). Two projects with one slug: 409 CONFLICT.
 */
const slugFromName: Hook = async (ctx, next) => {
  if (ctx.body && typeof ctx.body.name === 'string') ctx.body.slug = slugify(ctx.body.name);
  await next();
};

function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'project';
}
