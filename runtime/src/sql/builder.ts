import type { SqlDialect } from './dialect.js';

/**
 * Accumulates SQL text and its bound values. Identifiers go through `id()`
 * (they come from the registry); values only ever through `value()`.
 *
 * @example
 * const sql = new SqlBuilder(dialect).text('SELECT * FROM ').id('posts').text(' WHERE ').id('id').text(' = ').value(id);
 * await db.all(sql.sql, sql.params);
 */
export class SqlBuilder {
  sql = '';
  readonly params: unknown[] = [];

  constructor(readonly dialect: SqlDialect) {}

  text(text: string): this {
    this.sql += text;
    return this;
  }

  id(identifier: string): this {
    this.sql += this.dialect.quote(identifier);
    return this;
  }

  /** `"alias"."column"` */
  column(alias: string, column: string): this {
    this.sql += `${this.dialect.quote(alias)}.${this.dialect.quote(column)}`;
    return this;
  }

  value(value: unknown): this {
    this.params.push(value);
    this.sql += this.dialect.param(this.params.length);
    return this;
  }

  /** Appends `items` separated by `separator`, each written by `write`. */
  join<T>(items: readonly T[], separator: string, write: (item: T, sql: this) => void): this {
    items.forEach((item, i) => {
      if (i > 0) this.sql += separator;
      write(item, this);
    });
    return this;
  }
}
