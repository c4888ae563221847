// Declaring models
export type { Int, Localized, Model, SoftDelete, SoftDeleteFlag } from './model.js';
export * from './manifest/types.js';
export { type LoadedManifest, loadManifest } from './manifest/load.js';

// Server
export { App, type AppMigrationReport, createServer, type RawRouteHandler, type UpgradeHandler } from './app.js';
export type { Plugin } from './plugins/plugins.js';
export type { AppModule } from './cli/app-module.js';
export type { LocaleOptions } from './locale/options.js';
export { envKeyProvider, type KeyProvider, staticKeyProvider } from './security/encryption/keys.js';
export type { ComputedDefinition, ComputedSchema } from './computed/computed.js';
export { ROLLUP_OPS, type BackfillOptions, type BackfillProgress, type BackfillReport, type Rollup, type RollupDefinition, type RollupOp, type RollupWhereValue } from './rollups/rollup.js';
export { backfillRollups } from './rollups/backfill.js';
export type { SchedulerOptions, SweepReport } from './scheduler/runner.js';
export { SWEEP_JOB_TYPE } from './scheduler/dispatch.js';
export { type RotateFailure, type RotateOptions, type RotateProgress, type RotateReport, rotateKeys } from './security/encryption/rotate.js';
export { type Duration, type DocumentationConfig, type ServerConfig, durationMs } from './config/config.js';
export { type EnvConfig, envToConfig, loadEnv } from './config/env.js';
export { type Logger, defaultLogger, silentLogger } from './log/logger.js';
export type { HttpMiddleware, ProbesConfig, ReadinessCheck } from './probes/probes.js';
export { type ModelOverrides, Registry, defaultQueryLimits } from './registry/registry.js';
export type { ModelMeta } from './registry/model-meta.js';
export {
  add,
  type ArithmeticNode,
  col,
  type ColumnNode,
  div,
  type ExpressionDefinition,
  type ExpressionNode,
  type LiteralNode,
  lit,
  MAX_EXPRESSION_DEPTH,
  mul,
  sub,
} from './aggregate/expression.js';
export type { CodeAggregateOptions } from './aggregate/sql.js';

// Pipeline
export {
  Context,
  type HtmlResponse,
  type JsonResponse,
  type PendingResponse,
  type ResponseSource,
  type ScopeFilter,
  type StreamInit,
  type StreamResponse,
} from './pipeline/context.js';
export { type InProcessCall, markInProcess, presetIdentity } from './http/in-process.js';
export type { MultipartBody, MultipartLimits, MultipartParser, UploadedFile } from './http/multipart.js';
export type { ByteRange, FileStorage, StoredFile, StoredFileMeta } from './files/storage.js';
export { type DiskStorageOptions, diskStorage } from './files/disk.js';
export { isFileKey, newFileKey } from './files/keys.js';
export type { FilesConfig } from './files/fields.js';
export type { CascadeCause, WriteCaller, WriteChange, WriteObserver, WriteOp } from './pipeline/write-observers.js';
export { type Diff, diffOf, snapshotOf } from './store/diff.js';
export { codecOf, FULL_VIEW, type ModelCodec, type RecordData, type ResponseView } from './store/codec.js';
export type { TraceConfig } from './pipeline/pipeline.js';
export { type Hook, type HookScope, type Identity, type ModelHook, type ModelMiddleware, type Next, type Op, OPS, type Position, STEPS, type Step } from './pipeline/types.js';
export { transaction } from './hooks/transaction.js';
export { type BearerOptions, bearer, type JwtAlgorithm } from './hooks/bearer.js';
export { type ApiKeyOptions, apiKey } from './hooks/api-key.js';
export { type AuthenticatorSpec, authenticator, identity } from './hooks/authenticator.js';
export { block, requireAnyScope, requireRole, requireScopes } from './hooks/gates.js';
export { allowAnonymous, publicRead } from './hooks/anonymous.js';
export { forceFilter, type TenancyOptions, tenancy } from './hooks/tenancy.js';
export { type HashPasswordOptions, hashPassword, hashPasswordValue, verifyPassword } from './hooks/hash-password.js';
export { type CorsOptions, cors } from './hooks/cors.js';
export { type CsrfOptions, csrf } from './hooks/csrf.js';
export { type BodyLimitOptions, bodyLimit } from './hooks/body-limit.js';
export { type RateLimitOptions, type RateLimitStore, memoryStore, rateLimit } from './hooks/rate-limit.js';
export { type AuditRecord, type AuditOptions, audit } from './hooks/audit.js';
export { validate } from './hooks/validate.js';
export type { AtLeastOneOptions, CrossFieldOptions, DateRangeOptions, ForbiddenOptions, RegexOptions, RequiredWhenOptions } from './hooks/validate-rules.js';
export type { UniqueOptions } from './hooks/validate-unique.js';
export type { RequiredLocalesOptions } from './locale/required.js';
export { type HookMeta, type SecurityScheme, describeHook, hookMeta } from './pipeline/hook-meta.js';

// Custom actions and security description
export type { ActionDefinition, ActionDescriptor, ActionHandler, ActionInput, ActionMethod, ActionParameter, JsonSchema } from './actions/action.js';
export type { OperationSecurity, SecurityDescription, StandaloneRoute } from './security/describe.js';
export { actionOperation, actionPaths, type OpenApiOperation, securityRequirement, securitySchemes } from './actions/openapi.js';
export { findOneBy } from './store/lookup.js';
export { etag } from './hooks/etag.js';
export { idempotency, type IdempotencyOptions } from './hooks/idempotency.js';
export { type Claim, type IdempotencyStore, idempotencyTable, MemoryIdempotencyStore, SqlIdempotencyStore, type StoredResponse } from './hooks/idempotency-store.js';
export { type HistoryCaller, type HistoryEntry, type HistoryOperation, HistoryWriter, historyObserver, historyOf } from './store/history.js';
export { historyTableName, tableIndexes } from './sql/schema.js';
export type { ColumnSpec, ForeignKeySpec, IndexColumn, IndexSpec, TableSpec } from './sql/schema.js';

// Errors
export { ApiError, ConfigError, RegistrationClosedError, type ValidationDetail } from './errors/api-error.js';
export { type ErrorCode, errorCatalogue } from './errors/catalogue.js';

// Database
export { type Adapter, type Executor, type IterateOptions, NestedTransactionError, type Row } from './db/adapter.js';
export { openSqlite, type SqliteOptions } from './db/sqlite.js';
export { offlineAdapter } from './db/offline.js';
export { openPostgres, type PostgresOptions, type PostgresPoolConfig } from './db/postgres.js';
export { type MigrateOptions, type MigrationReport, migrate } from './migrate/migrate.js';
export { type MigrationPlan, type MigrationStep, planMigration } from './migrate/plan.js';
export { type DriftFinding, findingText, MigrationRefused } from './migrate/findings.js';
export type { ModelStore, Page, StoreOptions } from './store/model-store.js';

// OpenAPI
export { DocumentBuilder, type DocumentSources, type PathContribution } from './openapi/builder.js';
export { buildDocument, type DocumentInputs } from './openapi/document.js';
export type { HttpMethod, OpenApiDocument, Operation, Parameter, Schema } from './openapi/types.js';

// Query language and relations
export { FILTER_OPS, type FilterOp, type ListQuery } from './query/types.js';
export { type RecursiveQuery, recursiveQuery, type TreeCondition, type TreeRow } from './store/tree.js';
export type { CascadedChange, CascadeObserver } from './store/referential.js';

// Event bus contract and shared delivery rules (broker adapters in packages/events-*)
export type { DeliveryInfo, EventBus, EventHandler, MfxEvent, SubscribeOptions, Subscription } from './events/types.js';
export { BrokerBusState, BrokerSubscription, compilePatterns, deadLetterOf, decodeEvent, deliver, type DeliveryOutcome, encodeEvent, positiveWhole, type Settle, spansJobType, type Subscriber, subscriber } from './events/delivery.js';
export { realtime, type RealtimeMessage, type RealtimeOptions } from './events/realtime.js';
export { eventOf, eventType, publishEvents, redactRow } from './events/publish.js';
export { MemoryBus, memoryBus, type MemoryBusOptions } from './events/memory-bus.js';
export { OutboxBus, outboxBus, type OutboxOptions, outboxTable } from './events/outbox.js';
export { dedupe, type DedupeStore, dedupeTable, MemoryDedupeStore, memoryDedupeStore, SqlDedupeStore, sqlDedupeStore, type SqlDedupeOptions } from './events/dedupe.js';
export { type AsyncEventHandler, email, type EmailOptions, type MailTransport, webhook, WebhookError, type WebhookOptions, webhookSignature } from './events/subscribers.js';

export * from './jobs/index.js';

// A client an adapter package opens or is given (packages/redis, jobs-redis, events-redis)
export { type ClosableClient, clientFromOptions, type OwnedClient, ownedClient, quietClient } from './util/owned-client.js';
