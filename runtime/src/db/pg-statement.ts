import type pg from 'pg';
import type { Row } from './adapter.js';
import { loadDriver } from './drivers.js';

/** Turns one column's text value into its JavaScript value. */
export type ValueParser = (text: string) => unknown;

/** What a statement's rows look like: learnt from its first execution, then shared by every connection. */
interface Description {
  columns: number;
  /** Builds a row keyed by column name from the text values of one DataRow. */
  row: (values: ReadonlyArray<string | null>) => Row;
}

/** The parts of pg's connection a submittable drives (the extended query protocol). */
interface ProtocolConnection {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

interface FieldMessage {
  name: string;
  dataTypeID: number;
}

/** pg's own JavaScript → parameter conversion (Dates, Buffers, arrays), as pg.Query uses it. */
const valueMapper = (value: unknown): unknown => (prepareValue ??= loadDriver('pg/lib/utils.js').prepareValue)(value);
let prepareValue: ((value: unknown) => unknown) | undefined;

/**
 * One SQL text mfx built from the registry, prepared under a fixed name on
 * each connection. The first execution asks the server to describe its rows;
 * later ones skip the Describe message and its RowDescription reply, and
 * decode rows with parsers and a row shape chosen once.
 */
export class PreparedStatement {
  private description: Description | null = null;

  constructor(
    readonly name: string,
    readonly text: string,
    private readonly parserFor: (oid: number) => ValueParser,
  ) {}

  /** Whether executions still need the server to describe the rows. */
  get described(): boolean {
    return this.description !== null;
  }

  /** Learns the row shape from a RowDescription (or from its absence: a statement without rows). */
  learn(fields: readonly FieldMessage[]): void {
    const parsers = fields.map((field) => this.parserFor(field.dataTypeID));
    // Straight-line code with a fixed object shape; column names are quoted with JSON.stringify,
    // and `__proto__` is written as a computed key, which defines a property instead of the prototype.
    const key = (name: string) => (name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name));
    const entries = fields.map((field, i) => `${key(field.name)}: v[${i}] === null ? null : p[${i}](v[${i}])`);
    const row = new Function('p', `return function row(v) { return { ${entries.join(', ')} }; }`)(parsers) as Description['row'];
    this.description = { columns: fields.length, row };
  }

  decode(values: ReadonlyArray<string | null>): Row {
    const description = this.description;
    if (description?.columns !== values.length) {
      // Only a schema changed under a running server gets here (mfx never selects `*`): forget
      // the description so the next execution asks for it again, and fail this one loudly.
      this.description = null;
      throw new Error(`mfx: prepared statement ${this.name} returned ${values.length} columns where ${description?.columns ?? 'other'} were described; the schema changed under the server, and the next execution describes the rows again`);
    }
    return description.row(values);
  }
}

export interface StatementResult {
  rows: Row[];
  rowCount: number | null;
}

type Callback = (error: Error | null, result?: StatementResult) => void;

/**
 * One execution of a PreparedStatement, handed to `client.query()` as a pg
 * submittable: Parse (first time on the connection), Bind, Describe (first
 * time ever), Execute and Sync in one write.
 */
export class StatementExecution implements pg.Submittable {
  private readonly rows: Row[] = [];
  private rowCount: number | null = null;
  private describing = false;
  private failure: Error | null = null;
  private done = false;

  constructor(
    private readonly statement: PreparedStatement,
    private readonly values: unknown[],
    private readonly onDone: Callback,
  ) {}

  // pg's client reads these to keep its per-connection record of parsed statements.
  get name(): string {
    return this.statement.name;
  }
  get text(): string {
    return this.statement.text;
  }

  submit(connection: pg.Connection): void {
    const con = connection as unknown as ProtocolConnection;
    const { name, text } = this.statement;
    this.describing = !this.statement.described;
    con.stream.cork?.();
    try {
      if (con.parsedStatements[name] === undefined && con.submittedNamedStatements[name] === undefined) {
        con.parse({ text, name });
        con.submittedNamedStatements[name] = text;
      }
      con.bind({ portal: '', statement: name, values: this.values, valueMapper });
      if (this.describing) con.describe({ type: 'P', name: '' });
      con.execute({ portal: '' });
      con.sync();
    } finally {
      con.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: FieldMessage[] }): void {
    this.statement.learn(message.fields);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.failure) return;
    try {
      this.rows.push(this.statement.decode(message.fields));
    } catch (error) {
      // The server still finishes the statement; the failure is reported when it is ready again.
      this.failure = error as Error;
    }
  }

  handleCommandComplete(message: { text: string }): void {
    // A described statement that returned no RowDescription has no rows (NoData).
    if (this.describing && !this.statement.described) this.statement.learn([]);
    const count = /(\d+)$/.exec(message.text);
    this.rowCount = count ? Number(count[1]) : null;
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as ProtocolConnection).sendCopyFail('mfx statements do not copy');
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.finish(error);
  }

  handleReadyForQuery(): void {
    this.finish(this.failure);
  }

  private finish(error: Error | null): void {
    // A connection that dies can report an error after the result; only the first outcome counts.
    if (this.done) return;
    this.done = true;
    if (error) this.onDone(error);
    else this.onDone(null, { rows: this.rows, rowCount: this.rowCount });
  }
}
