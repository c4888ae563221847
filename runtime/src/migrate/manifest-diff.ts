/**
 * What changes between two manifests (`mfx diff OLD NEW`): the schema the
 * migration brings a database to, and the API clients see (routes, request
 * and response fields, query abilities, relations, limits). Each change
 * says whether it breaks: a client that worked against the old API fails
 * or silently loses data against the new one, or a database migrated for
 * the old models refuses requests (or keeps data where the new models do
 * not look). CI fails a change set that breaks without meaning to.
 */
import type { FieldManifest, Manifest, ModelManifest, OnDelete } from '../manifest/types.js';
import { fieldRoles, type FieldRoles } from '../manifest/roles.js';
import { ModelMeta } from '../registry/model-meta.js';
import { modelRoutes } from '../registry/model-routes.js';
import { defaultQueryLimits } from '../registry/registry.js';
import { type ColumnSpec, historyTable, type IndexSpec, modelTable, type TableSpec } from '../sql/schema.js';

export interface ManifestChange {
  /** `schema`: tables, columns and indexes; `api`: routes, fields of bodies and records, query abilities, relations, limits. */
  area: 'schema' | 'api';
  /** Breaks clients of the old API, or requests against a database migrated for the old models. */
  breaking: boolean;
  /** What changed: `posts.views`, `Post.title`, `DELETE /posts/:id`, `Post`. */
  subject: string;
  /** How it changed and what that means. */
  change: string;
}

/**
 * Every change from `old` to `now`, schema first, then API; breaking and
 * non-breaking alike, in model order.
 *
 * @example
 * diffManifests(before, after).filter((c) => c.breaking) // [{ area: 'api', subject: 'Post.title', change: 'removed: ...', breaking: true }]
 */
export function diffManifests(old: Manifest, now: Manifest): ManifestChange[] {
  return [...schemaChanges(old, now), ...apiChanges(old, now)];
}

type Change = (subject: string, text: string, breaking?: boolean) => void;

const byName = <T extends { name: string }>(list: readonly T[]) => new Map(list.map((item) => [item.name, item]));

function tablesOf(manifest: Manifest): Planned[] {
  const names = new Map(manifest.models.map((m) => [m.name, m.table]));
  return manifest.models.map((model) => ({ model, table: modelTable(model, names), history: historyTable(model) }));
}

// ── Schema ─────────────────────────────────────────────────────────────

type Planned = { model: ModelManifest; table: TableSpec; history: TableSpec | null };

function schemaChanges(old: Manifest, now: Manifest): ManifestChange[] {
  const out: ManifestChange[] = [];
  const change: Change = (subject, text, breaking = false) => out.push({ area: 'schema', breaking, subject, change: text });
  const before = tablesOf(old);
  const oldTable = new Map(before.map((t) => [t.table.name, t]));
  const oldModel = new Map(before.map((t) => [t.model.name, t]));
  const oldHistory = new Set(before.flatMap((t) => (t.history ? [t.history.name] : [])));
  const used = new Set<string>();
  for (const planned of tablesOf(now)) {
    const { model, table, history } = planned;
    used.add(table.name);
    const same = oldTable.get(table.name);
    const moved = oldModel.get(model.name);
    if (same) {
      compareTables(same, planned, change);
    } else if (moved && moved.table.name !== table.name) {
      change(
        table.name,
        `model ${model.name} moves from table ${moved.table.name} to ${table.name}: the migration creates ${table.name} empty and the rows stay in ${moved.table.name}; move them by hand (INSERT INTO ... SELECT ...) before serving the new models`,
        true,
      );
    } else {
      change(table.name, `table added (model ${model.name})`);
    }
    if (history) {
      used.add(history.name);
      if (!oldHistory.has(history.name)) change(history.name, `history table added (model ${model.name} is versioned)`);
    }
  }
  for (const { model, table, history } of before) {
    if (!used.has(table.name)) change(table.name, `table no longer used by the models (model ${model.name} was removed or moved); it is kept with its rows: the migration never drops tables`);
    if (history && !used.has(history.name)) change(history.name, `history table no longer written (model ${model.name} is not versioned now); it is kept with its entries`);
  }
  return out;
}

const columnText = (c: ColumnSpec) =>
  `${c.type}${c.nullable ? ', nullable' : ', NOT NULL'}${c.default !== undefined && c.default !== null ? ` DEFAULT ${JSON.stringify(c.default)}` : ''}${c.unique ? ', unique' : ''}`;

function compareTables(old: Planned, now: Planned, change: Change): void {
  const t = now.table.name;
  const oldColumns = byName(old.table.columns);
  const newColumns = byName(now.table.columns);
  const renamedAway = new Set(
    now.table.columns.flatMap((c) => (c.renamedFrom && oldColumns.has(c.renamedFrom) && !newColumns.has(c.renamedFrom) && !oldColumns.has(c.name) ? [c.renamedFrom] : [])),
  );
  for (const column of now.table.columns) {
    const subject = `${t}.${column.name}`;
    const previous = oldColumns.get(column.name) ?? (column.renamedFrom && renamedAway.has(column.renamedFrom) ? oldColumns.get(column.renamedFrom) : undefined);
    if (!previous) {
      change(subject, `column added (${columnText(column)})${column.references ? `, references ${column.references.table}` : ''}`);
      continue;
    }
    if (previous.name !== column.name) change(subject, `column renamed from ${previous.name} (renamed_from): the migration renames it, keeping its values`);
    if (previous.type !== column.type) {
      change(subject, `type ${previous.type} → ${column.type}: the migration never changes a column's type; convert it by hand before serving (mfx migrate --plan prints the SQL)`, true);
    }
    if (!previous.primaryKey && previous.nullable !== column.nullable) {
      if (column.nullable) change(subject, 'NOT NULL → nullable: the migration never changes nullability, so writes that leave it empty fail until it is changed by hand (mfx migrate --plan prints the SQL)', true);
      else change(subject, 'nullable → NOT NULL: the migration never changes nullability; rows holding NULL read back as null until it is changed by hand');
    }
    if (!previous.unique && column.unique) {
      change(subject, 'becomes unique: the migration adds UNIQUE only to new columns, so the database does not enforce it on this one until it is added by hand (CREATE UNIQUE INDEX)');
    }
    if (previous.unique && !column.unique && !now.table.indexes.some((i) => i.unique && i.liveOnly && sameColumns(i, [column.name]))) {
      change(subject, 'no longer unique: the existing UNIQUE stays in the database until dropped by hand, and keeps refusing duplicates');
    }
  }
  for (const column of old.table.columns) {
    if (newColumns.has(column.name) || renamedAway.has(column.name)) continue;
    const subject = `${t}.${column.name}`;
    // The field kept its name but stores in another column (`db:` changed without `renamed_from`).
    const was = old.model.fields.find((f) => f.column === column.name);
    const moved = was && now.model.fields.find((f) => f.name === was.name && f.column !== column.name);
    if (moved) {
      change(
        subject,
        `${now.model.name}.${moved.name} now stores in column ${moved.column}: the migration adds it empty and the values stay in ${column.name}; add renamed_from:${column.name} to ${now.model.name}.${moved.name}`,
        true,
      );
    } else if (!column.nullable && column.default === undefined && !column.primaryKey) {
      change(subject, `column removed from the model; it is NOT NULL without a default, so inserts fail until it is dropped by hand (or add renamed_from:${column.name} to the field that replaces it)`, true);
    } else {
      const twin = now.table.columns.find((c) => !oldColumns.has(c.name) && c.type === column.type && c.nullable === column.nullable && !c.renamedFrom);
      change(subject, `column removed from the model; it is kept with its values (the migration never drops columns)${twin ? `; if ${twin.name} is ${column.name} renamed, add renamed_from:${column.name} to its field` : ''}`);
    }
  }
  const oldIndexes = byName(old.table.indexes);
  // An index over a renamed column is renamed with it.
  const before = new Map([...renamedAway].map((from) => [now.table.columns.find((c) => c.renamedFrom === from)!.name, from]));
  const followed = new Set<string>();
  for (const index of now.table.indexes) {
    const previous = oldIndexes.get(index.name);
    if (previous && sameColumns(previous, names(index)) && previous.unique === index.unique) continue;
    const subject = `${t} (${names(index).join(', ')})`;
    const renamed = old.table.indexes.find((i) => !now.table.indexes.some((n) => n.name === i.name) && i.unique === index.unique && sameColumns(i, names(index).map((c) => before.get(c) ?? c)));
    if (renamed && before.size > 0) {
      followed.add(renamed.name);
      change(subject, `index ${renamed.name} becomes ${index.name} with its renamed column`);
      continue;
    }
    if (index.unique) {
      change(subject, `unique index ${index.name} added: writes that repeat a value are refused with 409, and the migration skips the index (with a warning) while rows already repeat one`, true);
    } else {
      change(subject, `index ${index.name} added`);
    }
  }
  for (const index of old.table.indexes) {
    if (!followed.has(index.name) && !now.table.indexes.some((i) => i.name === index.name)) change(`${t} (${names(index).join(', ')})`, `index ${index.name} no longer declared; it stays in the database until dropped by hand`);
  }
}

const names = (index: IndexSpec) => index.columns.map((c) => (typeof c === 'string' ? c : c.column));
const sameColumns = (index: IndexSpec, columns: readonly string[]) => {
  const own = names(index);
  return own.length === columns.length && own.every((c, i) => c === columns[i]);
};

// ── API ────────────────────────────────────────────────────────────────

/** A model as the runtime registers it, for its route table; its validators are never called. */
function meta(model: ModelManifest): ModelMeta {
  const never = () => {
    throw new Error('mfx: diff never validates');
  };
  return new ModelMeta(model, { create: never, update: never }, { ...defaultQueryLimits, ...model.options.queryLimits });
}

/** The served routes as clients call them: HEAD mirrors GET, and OPTIONS answers wherever a route is. */
const routesOf = (model: ModelManifest) =>
  modelRoutes(meta(model))
    .rows.filter((r) => r.served && r.method !== 'HEAD' && r.method !== 'OPTIONS')
    .map((r) => `${r.method} ${r.pattern}`);

function apiChanges(old: Manifest, now: Manifest): ManifestChange[] {
  const out: ManifestChange[] = [];
  const change: Change = (subject, text, breaking = false) => out.push({ area: 'api', breaking, subject, change: text });
  const before = byName(old.models);
  const after = byName(now.models);
  for (const model of now.models) {
    const previous = before.get(model.name);
    if (!previous) {
      change(model.name, `model added${model.options.headless ? ' (headless: no routes)' : ` with routes under /${model.table}`}`);
      continue;
    }
    const routesBefore = new Set(routesOf(previous));
    const routesAfter = new Set(routesOf(model));
    for (const route of routesBefore) if (!routesAfter.has(route)) change(route, `route removed (model ${model.name})`, true);
    for (const route of routesAfter) if (!routesBefore.has(route)) change(route, `route added (model ${model.name})`);
    compareFields(previous, model, change);
    compareRelations(previous, model, change);
    compareOptions(previous, model, change);
  }
  for (const model of old.models) {
    if (!after.has(model.name)) {
      const routes = routesOf(model);
      change(model.name, `model removed${routes.length ? `: its ${routes.length} routes under /${model.table} are gone` : ''}`, routes.length > 0);
    }
  }
  return out;
}

const ROLE_LOSSES: [keyof FieldRoles, string][] = [
  ['visible', 'no longer in responses'],
  ['writable', 'no longer accepted in create bodies: values sent for it are dropped'],
  ['updatable', 'no longer accepted in update bodies: values sent for it are dropped'],
  ['filterable', 'no longer filterable: filters on it are refused with 400'],
  ['sortable', 'no longer sortable: sorts on it are refused with 400'],
];
const ROLE_GAINS: [keyof FieldRoles, string][] = [
  ['visible', 'now in responses'],
  ['writable', 'now accepted in create bodies'],
  ['updatable', 'now accepted in update bodies'],
  ['filterable', 'now filterable'],
  ['sortable', 'now sortable'],
];

function compareFields(old: ModelManifest, now: ModelManifest, change: Change): void {
  const before = byName(old.fields);
  const after = byName(now.fields);
  const renamed = new Map<string, FieldManifest>();
  for (const field of now.fields) {
    const from = field.renamedFrom === undefined ? undefined : old.fields.find((f) => f.column === field.renamedFrom && !after.has(f.name));
    if (from && !before.has(field.name)) renamed.set(from.name, field);
  }
  for (const field of now.fields) {
    const subject = `${now.name}.${field.name}`;
    const roles = fieldRoles(field);
    const previousName = [...renamed.entries()].find(([, f]) => f === field)?.[0];
    const previous = before.get(field.name) ?? (previousName ? before.get(previousName) : undefined);
    if (!previous) {
      if (roles.requiredOnCreate) change(subject, 'new field required on create: creates that leave it out are refused with 422', true);
      else change(subject, `field added${roles.visible ? '' : ' (not in responses)'}`);
      continue;
    }
    if (previous.name !== field.name) {
      const seen = fieldRoles(previous);
      change(subject, `renamed from ${previous.name}: clients must read and write ${field.name}`, seen.visible || seen.writable);
    }
    compareField(subject, previous, field, change);
  }
  for (const field of old.fields) {
    if (after.has(field.name) || renamed.has(field.name)) continue;
    const roles = fieldRoles(field);
    const effects = [roles.visible ? 'no longer in responses' : '', roles.writable ? 'values sent for it are dropped' : '', roles.filterable || roles.sortable ? `${[roles.filterable ? 'filters' : '', roles.sortable ? 'sorts' : ''].filter(Boolean).join(' and ')} on it are refused` : '']
      .filter(Boolean)
      .join('; ');
    change(`${old.name}.${field.name}`, `field removed${effects ? `: ${effects}` : ''}`, effects !== '');
  }
}

function compareField(subject: string, old: FieldManifest, now: FieldManifest, change: Change): void {
  const was = fieldRoles(old);
  const is = fieldRoles(now);
  if (old.type !== now.type || old.items !== now.items) {
    change(subject, `type ${old.type}${old.items ? ` of ${old.items}` : ''} → ${now.type}${now.items ? ` of ${now.items}` : ''}`, true);
  }
  if (old.nullable !== now.nullable) {
    if (now.nullable) change(subject, 'now nullable: responses may hold null', is.visible);
    else change(subject, 'no longer nullable: writes of null are refused with 422', is.writable);
  }
  if (!was.requiredOnCreate && is.requiredOnCreate) change(subject, 'now required on create: creates that leave it out are refused with 422', true);
  if (was.requiredOnCreate && !is.requiredOnCreate && is.writable) change(subject, 'no longer required on create');
  for (const [role, text] of ROLE_LOSSES) if (was[role] && !is[role]) change(subject, text, true);
  for (const [role, text] of ROLE_GAINS) if (!was[role] && is[role]) change(subject, text);
  if (was.searchable && !is.searchable) change(subject, 'no longer searched by q');
  if (!was.searchable && is.searchable) change(subject, 'now searched by q');
  compareEnum(subject, old, now, is.writable || is.visible, change);
  compareBounds(subject, old, now, is.writable, change);
  if (JSON.stringify(old.default) !== JSON.stringify(now.default) && is.writable) {
    change(subject, `default ${old.default === undefined ? 'none' : JSON.stringify(old.default)} → ${now.default === undefined ? 'none' : JSON.stringify(now.default)}: creates that leave it out store the new one`);
  }
  if (!old.unique && now.unique) change(subject, 'now unique: writes that repeat a value are refused with 409', is.writable);
}

function compareEnum(subject: string, old: FieldManifest, now: FieldManifest, used: boolean, change: Change): void {
  if (!now.enum) {
    if (old.enum) change(subject, 'no longer limited to a list of values');
    return;
  }
  if (!old.enum) {
    change(subject, `now limited to ${now.enum.join(', ')}: other values are refused with 422`, used);
    return;
  }
  const removed = old.enum.filter((v) => !now.enum!.includes(v));
  const added = now.enum.filter((v) => !old.enum!.includes(v));
  if (removed.length) change(subject, `enum narrowed: ${removed.join(', ')} no longer accepted`, used);
  if (added.length) change(subject, `enum widened: ${added.join(', ')} accepted, and may appear in responses`);
}

const BOUNDS = [
  ['min', 'lower'],
  ['minlen', 'lower'],
  ['max', 'upper'],
  ['maxlen', 'upper'],
] as const;

function compareBounds(subject: string, old: FieldManifest, now: FieldManifest, writable: boolean, change: Change): void {
  for (const [key, side] of BOUNDS) {
    const [a, b] = [old[key], now[key]];
    if (a === b) continue;
    const tighter = b !== undefined && (a === undefined || (side === 'lower' ? b > a : b < a));
    change(subject, `${key} ${a ?? 'none'} → ${b ?? 'none'}${tighter ? ': values the old bound accepted are refused with 422' : ''}`, tighter && writable);
  }
}

const REFUSING = new Set<OnDelete>(['restrict', 'noAction']);

function compareRelations(old: ModelManifest, now: ModelManifest, change: Change): void {
  const before = new Map(old.relations.map((r) => [r.key, r]));
  const after = new Map(now.relations.map((r) => [r.key, r]));
  for (const [key, relation] of before) {
    const next = after.get(key);
    const subject = `${now.name}.${key}`;
    if (!next) {
      change(subject, `relation removed: include=${key} and filters through ${key} are refused with 400`, true);
    } else if (next.target !== relation.target) {
      change(subject, `relation now leads to ${next.target} instead of ${relation.target}`, true);
    } else if (relation.kind === 'belongsTo' && next.kind === 'belongsTo' && relation.onDelete !== next.onDelete) {
      const refuses = REFUSING.has(next.onDelete) && !REFUSING.has(relation.onDelete);
      change(`${relation.target} → ${now.name}.${key}`, `onDelete ${relation.onDelete} → ${next.onDelete}${refuses ? `: deleting a ${relation.target} that still has children is refused with 409` : ''}`, refuses);
    }
  }
  for (const key of after.keys()) if (!before.has(key)) change(`${now.name}.${key}`, 'relation added');
}

function compareOptions(old: ModelManifest, now: ModelManifest, change: Change): void {
  if (old.options.softDelete && !now.options.softDelete) {
    change(now.name, 'no longer soft-deletes: rows deleted before are visible again, and deletes remove rows', true);
  } else if (!old.options.softDelete && now.options.softDelete) {
    change(now.name, 'now soft-deletes: deleted rows stay in the table, hidden from reads');
  }
  const limits = { ...defaultQueryLimits };
  for (const key of Object.keys(limits) as (keyof typeof limits)[]) {
    const a = old.options.queryLimits[key] ?? limits[key];
    const b = now.options.queryLimits[key] ?? limits[key];
    if (a === b) continue;
    change(`${now.name} ${key}`, `${a} → ${b}${b < a ? ': queries over the new limit are refused with 400' : ''}`, b < a);
  }
  if (old.options.maxExportRows !== now.options.maxExportRows && now.options.export) {
    change(`${now.name} maxExportRows`, `${old.options.maxExportRows} → ${now.options.maxExportRows}`, now.options.maxExportRows < old.options.maxExportRows);
  }
}
