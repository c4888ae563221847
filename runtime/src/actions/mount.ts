import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../errors/api-error.js';
import type { RouteTable } from '../http/route-table.js';
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
  serve: (req: IncomingMessage & { params?: Record<string, string> }, res: ServerResponse, chain: Chain) => void,
): void {
  for (const { descriptor, chain } of actions) {
    const pattern = `${prefix}${descriptor.path}`;
    const methods = descriptor.method === 'GET' ? ['GET', 'HEAD'] : [descriptor.method];
    const taken = table.declared(pattern);
    const clash = methods.find((m) => taken.includes(m)) ?? (taken.includes('*') ? descriptor.method : undefined);
    if (clash) {
      throw new ConfigError(`action ${descriptor.method} ${pattern} collides with the generated route ${clash} ${pattern}; give the action another path`);
    }
    for (const method of methods) {
      try {
        table.add(method, pattern, (req, res) => serve(req, res, chain));
      } catch (error) {
        throw new ConfigError(`action ${descriptor.method} ${pattern} cannot be routed: ${(error as Error).message.replace(/^mfx: /, '')}; use the same parameter name as the generated routes`);
      }
    }
  }
}
