// The blog's statements on pg with mfx's pools (write 3, read 6), named prepared
// statements and value parsing (bigint and numeric as numbers, timestamps as ISO text).
import pg from 'pg';
import { blogStatements, type BlogStatements } from './blog-sql.js';
import type { BlogDb, Row } from './blog-routes.js';

const timestamptz = pg.types.getTypeParser(1184);
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1184 || oid === 1114) return (value: string) => (timestamptz(value) as Date).toISOString();
    return pg.types.getTypeParser(oid, format);
  },
};

export function postgresDb(url: string): BlogDb {
  const writePool = new pg.Pool({ connectionString: url, max: 3, types });
  const readPool = new pg.Pool({ connectionString: url, max: 6, types });
  const texts = blogStatements('postgres');
  const run = async (name: keyof BlogStatements, values: unknown[]) =>
    (await (name === 'insert' ? writePool : readPool).query<Row>({ name: `b_${name}`, text: texts[name], values })).rows;
  return {
    all: run,
    get: async (name, values) => (await run(name, values))[0],
    idList: (ids) => ids,
    async close() {
      await Promise.all([writePool.end(), readPool.end()]);
    },
  };
}
