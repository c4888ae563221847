// A consumer's `--app` module for `mfx serve`: hooks and an action, registered before start.
import { type App, allowAnonymous } from '@mfx/runtime';

export default function setup(app: App): void {
  app.use('auth', allowAnonymous(), { ops: ['list', 'read'] });
  app.action({
    name: 'hello',
    method: 'GET',
    path: '/hello',
    public: true,
    response: { schema: { type: 'object', properties: { hello: { type: 'string' } } } },
    async handler() {
      return { hello: 'from app' };
    },
  });
}
