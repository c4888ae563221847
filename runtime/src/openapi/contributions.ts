/**
 * The path contributions of one server: the built-in ones (every model's
 * route table, probes, the document itself) and those added before start by
 * features that serve routes of their own (custom actions, search, files).
 */
import { RegistrationClosedError, ConfigError } from '../errors/api-error.js';
import type { PathContribution } from './builder.js';
import { modelRoutesContribution } from './model-paths.js';
import { documentRouteContribution, probesContribution } from './probe-paths.js';

export const builtInContributions: readonly PathContribution[] = [
  modelRoutesContribution,
  probesContribution,
  documentRouteContribution,
];

export class OpenApiContributions {
  private readonly added: PathContribution[] = [];
  private sealed = false;

  /**
   * Adds a contribution; only during the setup window, like hooks.
   *
   * @example
   * app.openapi.contribute({ name: 'search', contribute: (doc) => doc.operation('get', '/search', {...}) });
   */
  contribute(contribution: PathContribution): void {
    if (this.sealed) throw new RegistrationClosedError(`the OpenAPI contribution ${contribution?.name ?? ''}`.trim());
    if (!contribution || typeof contribution.contribute !== 'function' || !contribution.name) {
      throw new ConfigError('an OpenAPI contribution needs a name and a contribute(doc) function');
    }
    this.added.push(contribution);
  }

  seal(): void {
    this.sealed = true;
  }

  /** Built-in contributions first, then the added ones in order. */
  all(): readonly PathContribution[] {
    return [...builtInContributions, ...this.added];
  }
}
