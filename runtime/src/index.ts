export type { Int, Localized, Model, SoftDelete, SoftDeleteFlag } from './model.js';
export * from './manifest/types.js';
