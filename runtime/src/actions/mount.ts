import { ConfigError } from '../errors/api-error.js';
import type { RouteHandler, RouteTable } from '../http/route-table.js';
import type { Chain } from '../pipeline/pipeline.js';
import type { ActionDescriptor } from './action.js';

/**
 * Adds every action to the route table after the generated routes. An action
 * on the same method and path pattern as a generated route (or a probe) is a
 * startup error; a static segment beside a model's `:id` is not a collision,
 * since static segments win (`GET /users/me` next to `GET /users/:id`).
 */
export function mountActions(
  table: RouteTable,
  prefix: string,
  actions: ReadonlyArray<{ descriptor: ActionDescriptor; chain: Chain }>,
  handlerOf: (chain: Chain) => RouteHandler,
): void {
  for (const { descriptor, chain } of actions) {
    const pattern = `${prefix}${descriptor.path}`;
    const methods = descriptor.method === 'GET' ? ['GET', 'HEAD'] : [descriptor.method];
    const handler = handlerOf(chain);
    const taken = table.declared(pattern);
    const clash = methods.find((m) => taken.includes(m)) ?? (taken.includes('*') ? descriptor.method : undefined);
    if (clash) {
      throw new ConfigError(`action ${descriptor.method} ${pattern} collides with the generated route ${clash} ${pattern}; give the action another path`);
    }
    for (const method of methods) {
      try {
        table.add(method, pattern, handler);
      } catch (error) {
        throw new ConfigError(`action ${descriptor.method} ${pattern} cannot be routed: ${(error as Error).message.replace(/^mfx: /, '')}; use the same parameter name as the generated routes`);
      }
    }
  }
}
