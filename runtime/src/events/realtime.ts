/**
 * The realtime hub (spec "Events" delivery 6, DESIGN "Events, webhooks,
 * realtime"): a plugin that subscribes to an event bus and fans each event
 * out to Server-Sent Events streams (`GET {prefix}/realtime/sse`) and
 * WebSocket connections (`{prefix}/realtime/ws`, protocol in
 * docs/realtime.md). Every message is `{id, type, model, record_id, data}`,
 * `data` being the event's, already redacted where the event was made.
 * A connection is admitted once: server not stopping, origin allowed, under
 * maxConnections, patterns valid, the app's Auth-step hooks passed (bearer
 * header or `access_token` query parameter). The last `bufferSize` events are
 * kept so a client that reconnects with `Last-Event-ID` misses none; a client
 * that does not read is dropped once `maxBufferedBytes` wait for it; stop()
 * ends every stream with a goodbye.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import { hostname } from 'node:os';
import type { Socket } from 'node:net';
import type { App } from '../app.js';
import { ApiError } from '../errors/api-error.js';
import { ConfigError } from '../errors/api-error.js';
import { identityHeaders } from '../http/router.js';
import { writeJson } from '../http/respond.js';
import type { Identity } from '../pipeline/types.js';
import type { Plugin } from '../plugins/plugins.js';
import { compilePatterns, positiveWhole } from './delivery.js';
import { realtimeContribution } from './realtime-openapi.js';
import type { EventBus, MfxEvent, Subscription } from './types.js';

export interface RealtimeOptions {
  /** Run the app's Auth-step hooks (those of a read on no model) on connect and refuse a caller they leave anonymous (default true); false: public streams. */
  auth?: boolean;
  /** Origins (`https://app.example.com`) allowed to connect; a request with another Origin header is refused 403. Default: any. */
  origins?: readonly string[];
  /** Open streams (SSE and WebSocket together) before new ones are refused 503 REALTIME_BUSY (default 1000). */
  maxConnections?: number;
  /** Events kept for `Last-Event-ID` resume (default 1000). */
  bufferSize?: number;
  /** Bytes allowed to wait unsent on one connection before it is dropped as a slow consumer (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Interval of SSE keep-alive comments and WebSocket pings, in ms (default 15 000). */
  keepAliveMs?: number;
  /** What the hub subscribes to on the bus (default every type of two or three segments: `*.*`, `*.*.*`). */
  patterns?: readonly string[];
  /**
   * The bus subscription's name; default unique per process
   * (`realtime-<host>-<pid>-<random>`), so every replica receives every
   * event, and ephemeral (its consumer group, consumer or queue goes with the
   * process). A name given here is a durable subscription, reused across
   * restarts.
   */
  subscription?: string;
  /**
   * Whether a caller may see an event; runs per connection and event. The
   * default lets a caller with a tenant see only its tenant's events (and
   * those without a tenant).
   */
  filter?: (event: MfxEvent, identity: Identity | null) => boolean;
}

/** One message as clients receive it (DESIGN decisions table). */
export interface RealtimeMessage {
  id: string;
  type: string;
  model: string | null;
  record_id: string | null;
  data: Record<string, unknown> | null;
}

/** Patterns one connection may hold. */
const MAX_PATTERNS = 32;
/** Largest WebSocket message a client may send. */
const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;
/** How long stop() waits for a WebSocket client to answer the close frame. */
const CLOSE_WAIT_MS = 1000;

interface Entry {
  seq: number;
  event: MfxEvent;
  /** The message as JSON, made once per event. */
  json: string;
}

interface Client {
  offer(entry: Entry): void;
  goodbye(reason: string): Promise<void>;
}

/** Recent events in order, for resume: a bounded ring with an index by event id. */
class Recent {
  private readonly entries: Entry[] = [];
  private readonly seqById = new Map<string, number>();
  private nextSeq = 1;

  constructor(private readonly size: number) {}

  add(event: MfxEvent): Entry {
    const message: RealtimeMessage = { id: event.id, type: event.type, model: event.model, record_id: event.recordId, data: event.data };
    const entry: Entry = { seq: this.nextSeq++, event, json: JSON.stringify(message) };
    this.entries.push(entry);
    this.seqById.set(event.id, entry.seq);
    if (this.entries.length > this.size) this.seqById.delete(this.entries.shift()!.event.id);
    return entry;
  }

  /** The entries after the one with this event id; null when that id is not (or no longer) kept. */
  after(id: string): Entry[] | null {
    const seq = this.seqById.get(id);
    if (seq === undefined) return null;
    return this.entries.filter((e) => e.seq > seq);
  }
}

/**
 * The realtime plugin.
 *
 * @example
 * await app.plugin(realtime(bus, { origins: ['https://app.example.com'], maxConnections: 5000 }));
 * // GET /api/realtime/sse?subscribe=post.*   (Authorization: Bearer <token>, or &access_token=<token>)
 * // ws://host/api/realtime/ws                 (see docs/realtime.md)
 */
export function realtime(bus: EventBus, options: RealtimeOptions = {}): Plugin<App> {
  if (!bus || typeof bus.subscribe !== 'function') throw new ConfigError('realtime(bus) needs an event bus (memoryBus(), redisStreamBus(), ...)');
  const maxConnections = positiveWhole('realtime()', 'maxConnections', options.maxConnections ?? 1000);
  const bufferSize = positiveWhole('realtime()', 'bufferSize', options.bufferSize ?? 1000);
  const maxBufferedBytes = positiveWhole('realtime()', 'maxBufferedBytes', options.maxBufferedBytes ?? 1024 * 1024);
  const keepAliveMs = positiveWhole('realtime()', 'keepAliveMs', options.keepAliveMs ?? 15_000);
  const busPatterns = options.patterns ?? ['*.*', '*.*.*'];
  compilePatterns(busPatterns);
  const origins = options.origins ? new Set(options.origins) : null;
  const filter = options.filter ?? sameTenant;
  const auth = options.auth ?? true;

  return async function realtimePlugin(app: App): Promise<void> {
    const prefix = app.config.pathPrefix;
    const ssePath = `${prefix}/realtime/sse`;
    const wsPath = `${prefix}/realtime/ws`;
    const serviceName = app.config.serviceName;
    const log = app.log;
    /**
     * Whether a client has more than maxBufferedBytes waiting unsent (logged: it is
     * dropped). Judged before each write, so one large message never drops a client that keeps up.
     */
    const tooSlow = (path: string, buffered: number): boolean => {
      if (buffered <= maxBufferedBytes) return false;
      log.warn({ path, buffered, maxBufferedBytes }, 'realtime: slow consumer dropped');
      return true;
    };
    const recent = new Recent(bufferSize);
    const clients = new Set<Client>();
    /** Connections past the count check whose admission (auth) is still running. */
    let admitting = 0;
    let stopping = false;
    // ws is imported on first use of the plugin: apps without realtime never load it.
    const { WebSocketServer } = await import('ws');
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES, clientTracking: false });

    interface Admitted {
      identity: Identity | null;
      patterns: string[];
      lastEventId: string | null;
    }

    /** Admits a connection or throws the ApiError to answer; a slot is held (admitting) until the caller adds the client. */
    const admit = async (req: IncomingMessage, res: ServerResponse, needPatterns: boolean): Promise<Admitted> => {
      if (stopping) throw new ApiError('REALTIME_BUSY', undefined, undefined, { 'Retry-After': '1' });
      const origin = req.headers.origin;
      if (origins && origin !== undefined && !origins.has(origin)) throw new ApiError('FORBIDDEN', `the origin ${origin.slice(0, 200)} may not open realtime streams`);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const patterns = url.searchParams.getAll('subscribe').flatMap((p) => p.split(',')).filter((p) => p !== '');
      if (needPatterns && patterns.length === 0) throw new ApiError('INVALID_QUERY', 'name the events to receive: ?subscribe=<pattern>, e.g. ?subscribe=post.* (repeat it or separate patterns with commas)');
      checkPatterns(patterns, (message) => new ApiError('INVALID_QUERY', message));
      if (clients.size + admitting >= maxConnections) throw new ApiError('REALTIME_BUSY', undefined, undefined, { 'Retry-After': '1' });
      admitting++;
      try {
        let identity: Identity | null = null;
        if (auth) {
          const token = url.searchParams.get('access_token');
          if (token !== null && req.headers.authorization === undefined) req.headers.authorization = `Bearer ${token}`;
          identity = await app.authenticate(req, res);
          if (!identity) throw new ApiError('UNAUTHORIZED', 'realtime streams need a credential: send Authorization: Bearer <token>, or ?access_token=<token>');
        }
        if (stopping) throw new ApiError('REALTIME_BUSY', undefined, undefined, { 'Retry-After': '1' });
        const lastEventId = header(req, 'last-event-id') ?? url.searchParams.get('last_event_id');
        return { identity, patterns, lastEventId };
      } catch (error) {
        admitting--;
        throw error;
      }
    };

    const sse = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      let admitted: Admitted;
      try {
        admitted = await admit(req, res, true);
      } catch (error) {
        refuse(req, res, error, serviceName, log);
        return;
      }
      admitting--;
      if (res.destroyed) return;
      const matches = compilePatterns(admitted.patterns);
      const wants = (entry: Entry) => matches(entry.event.type) && visible(filter, entry.event, admitted.identity, log);
      res.writeHead(200, {
        ...identityHeaders(req, serviceName),
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
        Connection: 'keep-alive',
      });
      res.flushHeaders();
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        if (tooSlow(ssePath, res.writableLength)) {
          end();
          res.destroy();
          return;
        }
        res.write(text);
      };
      const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
      keepAlive.unref();
      const client: Client = {
        offer: (entry) => {
          if (wants(entry)) write(`id: ${entry.event.id}\ndata: ${entry.json}\n\n`);
        },
        goodbye: async (reason) => {
          write(`event: goodbye\ndata: ${JSON.stringify({ reason })}\n\n`);
          end();
          res.end();
        },
      };
      const end = () => {
        if (!open) return;
        open = false;
        clearInterval(keepAlive);
        clients.delete(client);
      };
      res.on('close', end);
      write(': connected\n\n');
      if (admitted.lastEventId !== null) {
        const missed = recent.after(admitted.lastEventId);
        if (missed === null) write(`event: gap\ndata: ${JSON.stringify({ last_event_id: admitted.lastEventId })}\n\n`);
        else for (const entry of missed) client.offer(entry);
      }
      if (open) clients.add(client);
    };

    const websocket = async (req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> => {
      socket.on('error', () => socket.destroy());
      let admitted: Admitted;
      try {
        admitted = await admit(req, new ServerResponse(req), false);
      } catch (error) {
        refuseUpgrade(req, socket, error, serviceName, log);
        return;
      }
      if (socket.destroyed) {
        admitting--;
        return;
      }
      // Given back before the handshake: ws answers a malformed one (400) without calling back.
      admitting--;
      wss.handleUpgrade(req, socket, head, (ws) => {
        let matchers = new Map<string, (type: string) => boolean>(admitted.patterns.map((p) => [p, compilePatterns([p])]));
        let open = true;
        let alive = true;
        const send = (message: string) => {
          if (!open) return;
          if (tooSlow(wsPath, ws.bufferedAmount)) {
            end();
            ws.terminate();
            return;
          }
          ws.send(message);
        };
        const wants = (entry: Entry) => [...matchers.values()].some((m) => m(entry.event.type)) && visible(filter, entry.event, admitted.identity, log);
        const replay = (lastEventId: string) => {
          const missed = recent.after(lastEventId);
          if (missed === null) send(JSON.stringify({ type: 'gap', last_event_id: lastEventId }));
          else for (const entry of missed) client.offer(entry);
        };
        const client: Client = {
          offer: (entry) => {
            if (wants(entry)) send(`{"type":"event","event":${entry.json}}`);
          },
          goodbye: async (reason) => {
            if (!open) return;
            const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
            send(JSON.stringify({ type: 'goodbye', reason }));
            end();
            ws.close(1001, reason);
            const waited = await Promise.race([closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS, false).unref())]);
            if (!waited) ws.terminate();
          },
        };
        const heartbeat = setInterval(() => {
          if (!alive) {
            end();
            ws.terminate();
            return;
          }
          alive = false;
          ws.ping();
        }, keepAliveMs);
        heartbeat.unref();
        const end = () => {
          if (!open) return;
          open = false;
          clearInterval(heartbeat);
          clients.delete(client);
        };
        ws.on('pong', () => (alive = true));
        ws.on('close', end);
        ws.on('error', () => {
          end();
          ws.terminate();
        });
        ws.on('message', (data, isBinary) => {
          const reply = (message: Record<string, unknown>) => send(JSON.stringify(message));
          let message: { type?: unknown; id?: unknown; patterns?: unknown; last_event_id?: unknown };
          try {
            message = isBinary ? null : JSON.parse(String(data));
          } catch {
            message = null as never;
          }
          if (!message || typeof message !== 'object' || Array.isArray(message)) {
            reply({ type: 'error', code: 'INVALID_MESSAGE', message: 'send a JSON object with a type: subscribe, unsubscribe or ping' });
            return;
          }
          const ref = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
          const fail = (code: string, text: string) => reply({ type: 'error', id: ref, code, message: text });
          switch (message.type) {
            case 'ping':
              reply({ type: 'pong', id: ref });
              return;
            case 'subscribe':
            case 'unsubscribe': {
              const patterns = message.patterns;
              if (!Array.isArray(patterns) || patterns.length === 0 || !patterns.every((p) => typeof p === 'string')) {
                fail('INVALID_MESSAGE', `${message.type} needs patterns: a non-empty array of event patterns such as "post.*"`);
                return;
              }
              try {
                checkPatterns(patterns as string[], (text) => new Error(text));
              } catch (error) {
                fail('INVALID_PATTERN', (error as Error).message);
                return;
              }
              const next = new Map(matchers);
              if (message.type === 'subscribe') for (const p of patterns as string[]) next.set(p, compilePatterns([p]));
              else for (const p of patterns as string[]) next.delete(p);
              if (next.size > MAX_PATTERNS) {
                fail('TOO_MANY_PATTERNS', `a connection holds at most ${MAX_PATTERNS} patterns`);
                return;
              }
              matchers = next;
              reply({ type: 'ack', id: ref, patterns: [...matchers.keys()] });
              if (message.type === 'subscribe' && typeof message.last_event_id === 'string') replay(message.last_event_id);
              return;
            }
            default:
              fail('INVALID_MESSAGE', `unknown message type ${JSON.stringify(message.type)}; types are subscribe, unsubscribe and ping`);
          }
        });
        if (admitted.lastEventId !== null && matchers.size > 0) replay(admitted.lastEventId);
        if (open) clients.add(client);
      });
    };

    // A route of the table (other methods answer 405 there), not router middleware: other requests pay nothing for it.
    app.rawRoute('GET', ssePath, (req, res) => void sse(req, res));
    app.upgrade(wsPath, (req, socket, head) => void websocket(req, socket, head));
    app.openapi.contribute(realtimeContribution({ ssePath: ssePath.slice(prefix.length), wsPath: wsPath.slice(prefix.length), auth, origins: origins !== null, maxPatterns: MAX_PATTERNS }));

    let subscription: Subscription | null = null;
    app.onStopping(async () => {
      stopping = true;
      await Promise.all([...clients].map((c) => c.goodbye('server shutting down')));
      await subscription?.close();
    });
    subscription = await bus.subscribe({
      name: options.subscription ?? `realtime-${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}-${randomUUID().slice(0, 8)}`,
      // A per-process name is never used again: its broker artefact goes with the process. A name the app chose is durable, so a restarted replica catches up on what it missed.
      ephemeral: options.subscription === undefined,
      patterns: busPatterns,
      retries: 0,
      handler: (event) => {
        const entry = recent.add(event);
        for (const client of [...clients]) client.offer(entry);
      },
    });
  };
}

/** The default filter: a caller with a tenant sees its tenant's events and those without one. */
function sameTenant(event: MfxEvent, identity: Identity | null): boolean {
  return !identity?.tenantId || !event.tenantId || event.tenantId === identity.tenantId;
}

function visible(filter: NonNullable<RealtimeOptions['filter']>, event: MfxEvent, identity: Identity | null, log: App['log']): boolean {
  try {
    return filter(event, identity) === true;
  } catch (error) {
    log.error({ eventId: event.id, err: String((error as Error)?.message ?? error) }, 'realtime: the filter threw; the event was not sent');
    return false;
  }
}

function checkPatterns(patterns: readonly string[], error: (message: string) => Error): void {
  if (patterns.length > MAX_PATTERNS) throw error(`a connection holds at most ${MAX_PATTERNS} patterns`);
  for (const pattern of patterns) {
    try {
      compilePatterns([pattern]);
    } catch (e) {
      throw error((e as Error).message.replace(/^mfx: /, ''));
    }
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function asApiError(error: unknown, log: App['log']): ApiError {
  if (error instanceof ApiError) return error;
  log.error({ err: String((error as Error)?.message ?? error) }, 'realtime: admitting a connection failed');
  return new ApiError('INTERNAL');
}

function refuse(req: IncomingMessage, res: ServerResponse, error: unknown, serviceName: string | undefined, log: App['log']): void {
  const api = asApiError(error, log);
  writeJson(res, api.status, api.toJSON(), { ...identityHeaders(req, serviceName), ...(api.headers ?? {}) });
}

/** Answers a refused upgrade on the raw socket, in the API's error envelope, and closes it. */
function refuseUpgrade(req: IncomingMessage, socket: Socket, error: unknown, serviceName: string | undefined, log: App['log']): void {
  const api = asApiError(error, log);
  const body = JSON.stringify(api.toJSON());
  const headers = { ...identityHeaders(req, serviceName), ...(api.headers ?? {}), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const head = [`HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  if (!socket.destroyed) socket.end(`${head}\r\n\r\n${body}`);
}
