import type { FieldManifest, FieldRoles, ModelMeta, Registry } from '@mfx/runtime';

/** The input a field gets in the create and edit forms (the spec's widget list). */
export type Widget = 'text' | 'textarea' | 'number' | 'checkbox' | 'select' | 'relation' | 'file' | 'datetime' | 'list' | 'json' | 'localized' | 'secret';

/** One field as the panel shows and edits it, worked out once from the registry. */
export interface AdminField {
  name: string;
  label: string;
  field: FieldManifest;
  roles: FieldRoles;
  widget: Widget;
  /** The target model of a BelongsTo foreign key. */
  target: AdminModelRef | null;
}

export interface AdminModelRef {
  name: string;
  table: string;
}

/** A model as the panel shows it: its URL segment is its table name, as in the API. */
export interface AdminModel extends AdminModelRef {
  /** The table's name in words (`Post tags`); `singular` is the model's (`Post tag`). */
  label: string;
  singular: string;
  meta: ModelMeta;
  /** Shown in the detail: visible fields (neither hidden nor writeonly). */
  columns: AdminField[];
  /** Shown in the list: the visible fields but long text, JSON objects and the id (the title links to the row). */
  listColumns: AdminField[];
  /** Every field a form may hold: writable ones (writeonly ones too, as empty inputs). */
  inputs: AdminField[];
  filters: AdminField[];
  /** The field that names a row in relation selects and titles (name, title, ...; else the id). */
  titleField: string;
  /** HasMany relations: links to the child list filtered on its foreign key. */
  children: Array<{ key: string; label: string; target: AdminModelRef; field: string; filterable: boolean }>;
}

/** The widget of a field: the spec's list, plus JSON text for structured columns. */
function widgetOf(field: FieldManifest, roles: FieldRoles, hasTarget: boolean): Widget {
  if (field.writeonly) return 'secret';
  if (field.file) return 'file';
  if (hasTarget) return 'relation';
  if (field.enum) return 'select';
  switch (field.type) {
    case 'boolean':
      return 'checkbox';
    case 'number':
    case 'integer':
    case 'bigint':
      return 'number';
    case 'timestamp':
      return 'datetime';
    case 'json_array':
      return 'list';
    case 'json_object':
      return 'json';
    case 'localized':
      return 'localized';
    default:
      // Long free text gets a textarea: over 255 characters allowed (or no bound), and not a name, a key or a filter.
      return (field.maxlen ?? Infinity) > 255 && !TITLE_CANDIDATES.includes(field.name) && !field.unique && !roles.filterable && !roles.sortable ? 'textarea' : 'text';
  }
}

/** `publishedAt` → `Published at`, `created_at` → `Created at`. */
export function humanize(name: string): string {
  const words = name
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const TITLE_CANDIDATES = ['name', 'title', 'label', 'email', 'slug', 'username', 'code'];

/**
 * The models the panel shows (the `models` whitelist, or every served
 * model), each described once.
 *
 * @example
 * const models = adminModels(app.registry, ['Post', 'User']);
 */
export function adminModels(registry: Registry, whitelist: readonly string[] | null): Map<string, AdminModel> {
  const all = registry.all().filter((m) => m.mounted && !m.options.singleton);
  const shown = whitelist && whitelist.length > 0 ? all.filter((m) => whitelist.includes(m.name)) : all;
  const refOf = (name: string): AdminModelRef | null => {
    const model = shown.find((m) => m.name === name);
    return model ? { name: model.name, table: model.table } : null;
  };
  const byTable = new Map<string, AdminModel>();
  for (const meta of shown) {
    const targets = new Map<string, AdminModelRef | null>();
    const relationLabels = new Map<string, string>();
    const children: AdminModel['children'] = [];
    for (const relation of meta.relations.values()) {
      if (relation.kind === 'belongsTo') {
        targets.set(relation.field, refOf(relation.target));
        relationLabels.set(relation.field, humanize(relation.key));
      }
      else if (relation.kind === 'hasMany') {
        const target = refOf(relation.target);
        const child = target ? registry.all().find((m) => m.name === relation.target) : undefined;
        const field = child?.field(relation.remoteField);
        if (target && child && field) children.push({ key: relation.key, label: humanize(relation.key), target, field: field.name, filterable: child.roles(field).filterable });
      }
    }
    const describe = (field: FieldManifest): AdminField => {
      const roles = meta.roles(field);
      const target = targets.get(field.name) ?? null;
      return { name: field.name, label: relationLabels.get(field.name) ?? humanize(field.name), field, roles, widget: widgetOf(field, roles, target !== null), target };
    };
    const fields = meta.fields.filter((f) => !f.hidden).map(describe);
    const columns = fields.filter((f) => f.roles.visible);
    const title = TITLE_CANDIDATES.find((name) => columns.some((c) => c.name === name && c.field.type === 'string')) ?? 'id';
    byTable.set(meta.table, {
      name: meta.name,
      table: meta.table,
      label: humanize(meta.table),
      singular: humanize(meta.name),
      meta,
      columns,
      listColumns: columns.filter((c) => c.widget !== 'textarea' && c.widget !== 'json' && (c.name !== 'id' || title === 'id')),
      inputs: fields.filter((f) => f.roles.writable || f.field.readonly || f.field.immutable).filter((f) => !f.field.base),
      filters: columns.filter((f) => f.roles.filterable),
      titleField: title,
      children,
    });
  }
  return byTable;
}
