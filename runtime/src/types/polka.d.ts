// Types for polka 0.5 (its own package ships none; @types/polka describes Express-style handlers).
declare module 'polka' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Next = (error?: unknown) => void;
  type Handler = (req: any, res: ServerResponse, next: Next) => unknown;

  interface Polka {
    server?: Server;
    use(...handlers: Handler[]): Polka;
    use(base: string, ...handlers: Handler[]): Polka;
    get(pattern: string, ...handlers: Handler[]): Polka;
    head(pattern: string, ...handlers: Handler[]): Polka;
    post(pattern: string, ...handlers: Handler[]): Polka;
    put(pattern: string, ...handlers: Handler[]): Polka;
    patch(pattern: string, ...handlers: Handler[]): Polka;
    delete(pattern: string, ...handlers: Handler[]): Polka;
    options(pattern: string, ...handlers: Handler[]): Polka;
    all(pattern: string, ...handlers: Handler[]): Polka;
    handler(req: IncomingMessage, res: ServerResponse): void;
    listen(...args: unknown[]): Polka;
  }

  interface PolkaOptions {
    server?: Server;
    onError?: (error: unknown, req: any, res: ServerResponse, next: Next) => void;
    onNoMatch?: (req: any, res: ServerResponse) => void;
  }

  export default function polka(options?: PolkaOptions): Polka;
}
