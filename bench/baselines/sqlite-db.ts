// The blog's statements on better-sqlite3, prepared once: a writer in WAL mode and
// a read-only reader beside it, with the pragmas mfx sets.
import Database from 'better-sqlite3';
import { blogStatements, type BlogStatements } from './blog-sql.js';
import type { BlogDb, Row } from './blog-routes.js';

export function sqliteDb(file: string): BlogDb {
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.pragma('foreign_keys = ON');
  const reader = new Database(file, { readonly: true });
  const texts = blogStatements('sqlite');
  const prepared = Object.fromEntries(
    Object.entries(texts).map(([name, text]) => [name, (name === 'insert' ? writer : reader).prepare(text)]),
  ) as Record<keyof BlogStatements, Database.Statement>;
  return {
    all: (name, values) => prepared[name].all(...values) as Row[],
    // The insert (… RETURNING) runs to its end, as mfx runs it: SQLite checkpoints its WAL only when a
    // statement finishes, and a peer that stopped at the first row would never pay a checkpoint.
    get: (name, values) => (name === 'insert' ? prepared[name].all(...values)[0] : prepared[name].get(...values)) as Row | undefined,
    idList: (ids) => JSON.stringify(ids),
    async close() {
      reader.close();
      writer.close();
    },
  };
}
