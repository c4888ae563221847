import { ConfigError } from '../errors/api-error.js';
import { type ActionDefinition, type ActionDescriptor, describeAction } from './action.js';

export interface DeclaredAction {
  def: ActionDefinition;
  descriptor: ActionDescriptor;
}

/** The actions declared on an app, in declaration order; duplicates are refused as they are declared. */
export class ActionRegistry {
  readonly all: DeclaredAction[] = [];

  /** Checks a declaration and keeps it; returns its descriptor. */
  add(def: ActionDefinition): DeclaredAction {
    const descriptor = describeAction(def);
    const shape = (path: string) => path.replace(/:[^/]+/g, ':');
    if (this.all.some((a) => a.descriptor.method === descriptor.method && shape(a.descriptor.path) === shape(descriptor.path))) {
      throw new ConfigError(`action ${descriptor.method} ${descriptor.path} is declared twice`);
    }
    if (this.all.some((a) => a.descriptor.name === descriptor.name)) throw new ConfigError(`action name ${descriptor.name} is used twice; give one a different name`);
    const declared = { def, descriptor };
    this.all.push(declared);
    return declared;
  }
}
