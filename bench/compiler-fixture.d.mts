/** The model names, in generation order (every tenth is a junction). */
export function modelNames(count: number): string[];

/**
 * Write `count` models over `files` files into `dir`, plus a tsconfig.json and
 * a node_modules link so `@mfx/runtime` resolves. Returns the entry files.
 */
export function generateFixture(dir: string, options?: { count?: number; files?: number }): string[];
