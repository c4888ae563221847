// Declaring models
export type { Int, Localized, Model, SoftDelete, SoftDeleteFlag } from './model.js';
export * from './manifest/types.js';
export { type LoadedManifest, loadManifest } from './manifest/load.js';

// Server
export { App, createServer } from './app.js';
export { type Duration, type DocumentationConfig, type ServerConfig, durationMs } from './config/config.js';
export { type EnvConfig, envToConfig, loadEnv } from './config/env.js';
export { type Logger, defaultLogger, silentLogger } from './log/logger.js';
export type { HttpMiddleware, ProbesConfig, ReadinessCheck } from './probes/probes.js';
export { type ModelOverrides, Registry, defaultQueryLimits } from './registry/registry.js';
export type { ModelMeta } from './registry/model-meta.js';

// Pipeline
export { Context, type PendingResponse, type ScopeFilter } from './pipeline/context.js';
export type { TraceConfig } from './pipeline/pipeline.js';
export { type Hook, type HookScope, type Identity, type Next, type Op, OPS, type Position, STEPS, type Step } from './pipeline/types.js';
export { transaction } from './hooks/transaction.js';

// Errors
export { ApiError, ConfigError, RegistrationClosedError, type ValidationDetail } from './errors/api-error.js';
export { type ErrorCode, errorCatalogue } from './errors/catalogue.js';

// Database
export { type Adapter, type Executor, NestedTransactionError, type Row } from './db/adapter.js';
export { openSqlite, type SqliteOptions } from './db/sqlite.js';
export { openPostgres, type PostgresOptions } from './db/postgres.js';
export { type MigrationReport, migrate } from './migrate/migrate.js';
export type { ModelStore, Page, StoreOptions } from './store/model-store.js';

// Query language and relations
export { FILTER_OPS, type FilterOp, type ListQuery } from './query/types.js';
export { type RecursiveQuery, recursiveQuery, type TreeCondition, type TreeRow } from './store/tree.js';
export type { CascadedChange, CascadeObserver } from './store/referential.js';
