/**
 * Drift: how an existing table differs from what the models declare, as
 * findings that name the table and column, say what differs and how to fix
 * it, and whether requests fail while it stands (strict migrations refuse
 * those).
 */
import type { ColumnInfo } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import { dropColumnStatement } from '../sql/ddl.js';
import type { SqlDialect } from '../sql/dialect.js';
import type { TableSpec } from '../sql/schema.js';

/** One difference between the database and the models that the migration does not fix, or a note about what it did. */
export interface DriftFinding {
  table: string;
  /** The column, when the finding is about one. */
  column: string | null;
  /** What differs, naming table and column. */
  message: string;
  /** How to fix it: the SQL to run by hand, or the change to make to the models; null when the message says it all. */
  fix: string | null;
  /** Requests fail while it stands (a type the model does not expect, an insert that cannot succeed): strict migrations refuse to proceed. */
  breaking: boolean;
}

/**
 * The finding as one line: the message, then how to fix it.
 *
 * @example
 * findingText({ table: 'posts', column: 'views', message: 'posts.views is text ...', fix: 'to convert it, run: ...', breaking: true })
 */
export function findingText(finding: DriftFinding): string {
  return finding.fix ? `${finding.message}; ${finding.fix}` : finding.message;
}

/** A finding with no fix to suggest: what the migration did or could not do, in one sentence. */
export function note(table: string, column: string | null, message: string): DriftFinding {
  return { table, column, message, fix: null, breaking: false };
}

/**
 * How an existing table's columns (as the migration leaves them: renamed and
 * added ones included) differ from what `declarer` (`model Post`) declares:
 * columns it does not declare, other types, other nullability. Breaking: a
 * type other than the declared one, a NOT NULL column without a default
 * that no field writes (every insert fails), a NOT NULL column the model
 * declares nullable (writes that leave it empty fail).
 *
 * @example
 * columnFindings(modelTable(post, tables), columns, postgres, 'model Post')
 */
export function columnFindings(table: TableSpec, columns: readonly ColumnInfo[], dialect: SqlDialect, declarer: string): DriftFinding[] {
  const declared = new Map(table.columns.map((c) => [c.name, c]));
  const out: DriftFinding[] = [];
  for (const column of columns) {
    const subject = `${table.name}.${column.name}`;
    const expected = declared.get(column.name);
    const drop = dropColumnStatement(dialect, table.name, column.name);
    if (!expected) {
      if (!column.nullable && !column.hasDefault) {
        out.push({
          table: table.name,
          column: column.name,
          message: `${subject} is NOT NULL without a default in the database but ${declarer} does not declare it, so every insert into ${table.name} fails; migration never drops columns`,
          fix: `if a field replaced it, add renamed_from:${column.name} to that field; otherwise drop it once its data is no longer needed: ${drop}`,
          breaking: true,
        });
      } else {
        out.push({
          table: table.name,
          column: column.name,
          message: `${subject} exists in the database but ${declarer} does not declare it; it is kept (migration never drops columns)`,
          fix: `drop it once its data is no longer needed: ${drop}`,
          breaking: false,
        });
      }
      continue;
    }
    const type = dialect.columnType(expected.type).toLowerCase();
    const typeDiffers = column.type !== type;
    const nullabilityDiffers = !expected.primaryKey && column.nullable !== expected.nullable;
    if (!typeDiffers && !nullabilityDiffers) continue;
    const byHand = dialect.alterColumnByHand(table.name, expected, column);
    const how = `run: ${byHand.statements.join('; ')}${byHand.note ? ` (${byHand.note})` : ''}`;
    if (typeDiffers) {
      out.push({
        table: table.name,
        column: column.name,
        message: `${subject} is ${column.type} in the database but ${declarer} declares ${type}, so requests that read or write it fail or return other values; migration never changes a column's type`,
        fix: `to convert it, ${how}`,
        breaking: true,
      });
    } else if (!column.nullable) {
      out.push({
        table: table.name,
        column: column.name,
        message: `${subject} is NOT NULL in the database but ${declarer} declares it nullable, so writes that leave it empty fail; migration never changes nullability`,
        fix: `to allow NULL, ${how}`,
        breaking: true,
      });
    } else {
      out.push({
        table: table.name,
        column: column.name,
        message: `${subject} is NULL in the database but ${declarer} declares it not nullable; rows that hold NULL read back as null (migration never changes nullability)`,
        fix: `to forbid NULL, ${how}`,
        breaking: false,
      });
    }
  }
  return out;
}

/**
 * A strict migration (`mfx migrate --strict`, `strictMigrations`) found
 * drift that would break requests and changed nothing. `findings` are the
 * breaking ones.
 *
 * @example
 * try { await app.migrate({ strict: true }); } catch (e) { if (e instanceof MigrationRefused) console.error(e.findings); }
 */
export class MigrationRefused extends ConfigError {
  constructor(
    readonly findings: readonly DriftFinding[],
    by: string,
  ) {
    const count = findings.length === 1 ? 'one way' : `${findings.length} ways`;
    super(`${by}: the database differs from the models in ${count} that would break requests, so nothing was changed:\n${findings.map((f) => `  - ${findingText(f)}`).join('\n')}`);
  }
}
