/**
 * IR → manifest.json, in the contract's key order so the output is stable
 * byte for byte.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import {
  type FieldManifest,
  MANIFEST_FORMAT,
  type Manifest,
  type ModelManifest,
  type ModelOptions,
  type RelationManifest,
  type SourceLocation,
} from '@mfx/runtime/manifest';
import type { Span } from '../ir/diagnostics.js';
import type { FieldIR, ModelIR, RelationIR } from '../ir/model.js';
import { bodySchemas } from './schema.js';
import { sqlTemplates } from './sql.js';

export interface CompilerInfo {
  name: string;
  version: string;
}

/** A path relative to the manifest directory, with forward slashes. */
export function relativePath(outDir: string, file: string): string {
  return relative(outDir, file).split(sep).join('/');
}

function location(outDir: string, span: Span): SourceLocation {
  return { file: relativePath(outDir, span.file), line: span.line, col: span.col };
}

/** Only keys that are set, in the order given (undefined values are left out). */
function defined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as T;
}

function fieldManifest(field: FieldIR, outDir: string): FieldManifest {
  return defined<FieldManifest>({
    name: field.name,
    column: field.column,
    renamedFrom: field.renamedFrom,
    type: field.type,
    items: field.items,
    nullable: field.nullable,
    base: field.base,
    description: field.description,
    required: field.required,
    enum: field.enum,
    min: field.min,
    max: field.max,
    minlen: field.minlen,
    maxlen: field.maxlen,
    default: field.default,
    readonly: field.readonly,
    immutable: field.immutable,
    writeonly: field.writeonly,
    hidden: field.hidden,
    filterable: field.filterable,
    sortable: field.sortable,
    searchable: field.searchable,
    unique: field.unique,
    index: field.index,
    relation: field.relation,
    file: field.file && defined({ maxSize: field.file.maxSize, accept: field.file.accept, autoDelete: field.file.autoDelete }),
    encrypted: field.encrypted && { keyId: field.encrypted.keyId, unique: field.encrypted.unique },
    scheduled: field.scheduled,
    locale: field.locale && defined({ mode: field.locale.mode, defaultLocale: field.locale.defaultLocale }),
    source: location(outDir, field.span),
  });
}

function relationManifest(relation: RelationIR, outDir: string): RelationManifest {
  const source = location(outDir, relation.span);
  switch (relation.kind) {
    case 'belongsTo':
      return defined<RelationManifest>({
        kind: relation.kind,
        key: relation.key,
        target: relation.target,
        field: relation.field,
        column: relation.column,
        onDelete: relation.onDelete,
        companion: relation.companion,
        source,
      });
    case 'hasMany':
      return {
        kind: relation.kind,
        key: relation.key,
        target: relation.target,
        inverse: relation.inverse,
        remoteField: relation.remoteField,
        remoteColumn: relation.remoteColumn,
        source,
      };
    case 'manyToMany':
      return {
        kind: relation.kind,
        key: relation.key,
        target: relation.target,
        through: relation.through,
        throughTable: relation.throughTable,
        localColumn: relation.localColumn,
        targetColumn: relation.targetColumn,
        source,
      };
  }
}

function optionsManifest(options: ModelOptions): ModelOptions {
  return {
    softDelete: options.softDelete && { field: options.softDelete.field, column: options.softDelete.column, type: options.softDelete.type },
    versioned: options.versioned && { diffOnly: options.versioned.diffOnly, required: options.versioned.required },
    singleton: options.singleton,
    headless: options.headless,
    aggregate: options.aggregate,
    export: options.export,
    maxExportRows: options.maxExportRows,
    globalSearch: options.globalSearch,
    optimisticLock: options.optimisticLock,
    cursorField: options.cursorField,
    indices: options.indices.map((index) => ({ name: index.name, columns: index.columns, unique: index.unique })),
    defaultLocale: options.defaultLocale,
    localeMode: options.localeMode,
    adapter: options.adapter,
    queryLimits: Object.fromEntries(Object.entries(options.queryLimits).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/** Every source file with its sha256, sorted, plus the hash over that list. */
function hashSources(models: ModelIR[], outDir: string): Pick<Manifest, 'sourceHash' | 'sources'> {
  const files = [...new Set(models.flatMap((m) => m.files))];
  const sources = files
    .map((file) => ({ file: relativePath(outDir, file), sha256: createHash('sha256').update(readFileSync(file)).digest('hex') }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { sourceHash: sourceHashOf(sources), sources };
}

/** The hash over a manifest's source list (paths as written in it, with their sha256). */
export function sourceHashOf(sources: readonly { file: string; sha256: string }[]): string {
  const hash = createHash('sha256');
  for (const source of sources) hash.update(`${source.file}\0${source.sha256}\n`);
  return hash.digest('hex');
}

/**
 * The manifest of a set of models (already sorted by name), with paths relative to `outDir`.
 *
 * @example
 * const manifest = buildManifest(models, '/app/.mfx', { name: '@mfx/compiler', version: '0.1.0' });
 */
export function buildManifest(models: ModelIR[], outDir: string, compiler: CompilerInfo): Manifest {
  const tables = new Map(models.map((m) => [m.name, m.table]));
  const modelManifests = models.map((model): ModelManifest => {
    const fields = model.fields.map((f) => fieldManifest(f, outDir));
    const relations = model.relations.map((r) => relationManifest(r, outDir));
    const options = optionsManifest(model.options);
    const shape = { name: model.name, table: model.table, fields, relations, options };
    return defined<ModelManifest>({
      name: model.name,
      table: model.table,
      description: model.description,
      fields,
      relations,
      options,
      schemas: bodySchemas(fields),
      sql: sqlTemplates(shape, tables),
      source: location(outDir, model.span),
    });
  });
  return {
    format: MANIFEST_FORMAT,
    compiler: { name: compiler.name, version: compiler.version },
    ...hashSources(models, outDir),
    models: modelManifests,
  };
}

/** The manifest as written: 2-space JSON with a trailing newline. */
export function serializeManifest(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
