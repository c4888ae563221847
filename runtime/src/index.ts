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
export type { ModelStore } from './store/model-store.js';

// OpenAPI
export { type AuthDoc, documentAuth, type SecurityScheme } from './openapi/security.js';
export { DocumentBuilder, type DocumentSources, type PathContribution } from './openapi/builder.js';
export { buildDocument, type DocumentInputs } from './openapi/document.js';
export type { HttpMethod, OpenApiDocument, Operation, Parameter, Schema } from './openapi/types.js';
export { type ActionDoc, actionsContribution } from './openapi/actions.js';
