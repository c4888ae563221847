/**
 * ts-morph's runtime values, loaded with require().
 *
 * When an ES module imports a CommonJS package, Node scans the package's
 * source for its export names; for ts-morph that scan alone costs about
 * 120 ms per build. Types still come from `import type … from 'ts-morph'`.
 */
import { createRequire } from 'node:module';
import type * as TsMorph from 'ts-morph';

const morph = createRequire(import.meta.url)('ts-morph') as typeof TsMorph;

export const Project = morph.Project;
export type Project = TsMorph.Project;

export const Node = morph.Node;
export type Node = TsMorph.Node;

/** The TypeScript compiler API bundled with ts-morph (its types: `import type { ts } from 'ts-morph'`). */
export const typescript = morph.ts;
