/**
 * Metadata carried on a function under a registry-wide symbol, so a hook or
 * middleware describes itself (for OpenAPI, production validation) without
 * changing its call signature.
 *
 * @example
 * const slot = metaSlot<{ label: string }>('mfx.example');
 * const tagged = slot.attach(() => {}, { label: 'example' });
 * slot.read(tagged); // { label: 'example' }
 */
export function metaSlot<M>(key: string) {
  const symbol = Symbol.for(key);
  return {
    attach<F extends object>(target: F, meta: M): F {
      (target as Record<symbol, M>)[symbol] = meta;
      return target;
    },
    read(target: object): M | undefined {
      return (target as Record<symbol, M | undefined>)[symbol];
    },
  };
}
