// Starts a real mfx server on a loopback port for end-to-end tests.
import { type Adapter, type App, createServer, type Logger, type ModelOverrides, type ServerConfig } from '@mfx/runtime';
import type { Backend } from './backends.js';
import { loadFixture } from './fixtures.js';
import { ResponseValidator } from './response-validator.js';
import { Recorder } from './wait.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message?: string;
}

/** A logger that keeps every line, for assertions on logs; `next` waits for a line (an event, not a poll). */
export function memoryLogger(): Logger & { lines: LogLine[]; next(match: (line: LogLine) => boolean): Promise<LogLine> } {
  const recorder = new Recorder<LogLine>();
  const at = (level: LogLine['level']) => (fields: object, message?: string) => recorder.push({ level, fields: fields as Record<string, unknown>, message });
  return {
    lines: recorder.seen,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    next: (match) => recorder.next(match),
  };
}

/** A running test server: what tests use of it (`useServer` hands out this much). */
export interface ServerHandle {
  app: App;
  /** Base URL including the path prefix, e.g. http://127.0.0.1:41234/api */
  url: string;
  logs: LogLine[];
  /** The first log line (already written or still to come) that `match` accepts. */
  logLine(match: (line: LogLine) => boolean): Promise<LogLine>;
  /** `unchecked: true` skips the OpenAPI check for one deliberately odd answer (a handler's made-up status, say). */
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string>; raw?: string | Buffer; unchecked?: boolean }): Promise<TestResponse>;
}

/** A server `startServer` started: the test closes it. */
export interface TestServer extends ServerHandle {
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when there is no body. */
  body: any;
  text: string;
}

export interface StartOptions {
  fixture?: string;
  /** Model option overrides given to `app.register` with the fixture. */
  overrides?: Record<string, ModelOverrides>;
  config?: ServerConfig;
  /** Registers hooks and options before the adapter is opened. */
  setup?: (app: App) => void | Promise<void>;
  /** Runs on the opened database before the server starts (and migrates): an older schema, say. */
  prepare?: (adapter: Adapter) => Promise<void>;
  /**
   * Check every response against the server's OpenAPI document (default
   * true). Turn it off only in tests that deliberately answer with shapes
   * the document cannot describe (a hook replacing a response, say).
   */
  validateResponses?: boolean;
}

export async function startServer(backend: Backend, options: StartOptions = {}): Promise<TestServer> {
  const logger = memoryLogger();
  // Documentation is on by default so every suite serves /openapi.json and checks responses against it.
  const app = createServer({ port: 0, host: '127.0.0.1', logger, handleSignals: false, documentation: { public: true }, ...options.config });
  app.register(await loadFixture(options.fixture ?? 'blog'), options.overrides);
  await options.setup?.(app);
  const { adapter, drop } = await backend.open(app.registry);
  app.setDB(adapter);
  await options.prepare?.(adapter);
  const { port } = await app.start();
  const url = `http://127.0.0.1:${port}${app.config.pathPrefix}`;
  const validator = options.validateResponses === false ? null : new ResponseValidator(app.document() as never);
  return {
    app,
    url,
    logs: logger.lines,
    logLine: (match) => logger.next(match),
    async request(method, path, init = {}) {
      const response = await request(`${url}${path}`, method, init);
      const problem = init.unchecked ? null : validator?.check(method, path, response.status, response.text, response.headers.get('content-type'));
      if (problem) throw new Error(`response does not match the OpenAPI document (opt out with validateResponses: false only for deliberate odd shapes): ${problem}`);
      return response;
    },
    async close() {
      await app.stop();
      await drop();
    },
  };
}

export async function request(
  url: string,
  method: string,
  init: { body?: unknown; headers?: Record<string, string>; raw?: string | Buffer } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...init.headers };
  let body = init.raw as RequestInit['body'];
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
