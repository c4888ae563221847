// The built-in subscribers end to end: webhook() POSTs each event of a real write, signed
// (the test verifies the HMAC itself) and with traceparent, never with a redacted field;
// it retries network errors and 5xx, and a 4xx is final (dead-lettered at once).
// email() sends through nodemailer to a real SMTP server started here (smtp-server).
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { email, type MfxEvent, memoryBus, publishEvents, webhook } from '@mfx/runtime';
import { memoryLogger } from '../../support/server.js';
import { eachBackend, useServer } from '../../support/suite.js';
import { Recorder } from '../../support/wait.js';
import { assertRedacted, eventsConfig, PASSWORD, record, SSN, TRACE } from './support.js';

const SECRET = 'whsec-test-0123456789';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a loopback port answering with the statuses given in turn (then 204). */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Recorder<Received>; server: Server }> {
  const received = new Recorder<Received>();
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(statuses.shift() ?? 204).end();
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

const verified = (secret: string, { headers, body }: Received): boolean => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(String(headers['x-webhook-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const event = (id: string): MfxEvent => ({ id, type: 'order.created', model: 'Order', recordId: id, data: { title: 't' }, tenantId: null, actorId: null, requestId: null, time: new Date().toISOString(), headers: {} });

eachBackend('webhook subscriber', (backend) => {
  const bus = memoryBus({ logger: memoryLogger() });
  let hook!: Awaited<ReturnType<typeof receiver>>;
  before(async () => {
    hook = await receiver();
    await bus.subscribe({ name: 'crm', patterns: ['account.*'], handler: webhook({ url: hook.url, secret: SECRET, headers: { 'x-tenant': 'acme' } }) });
  });
  after(() => hook.server.close());
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    setup: (app) => void app.use('db', publishEvents(bus), { position: 'after' }),
  });

  it('POSTs the event of a write as JSON, signed, with traceparent and the configured headers, redacted', async () => {
    const created = await server.request('POST', '/accounts', { body: { name: 'Hooked', password: PASSWORD, ssn: SSN }, headers: { traceparent: TRACE } });
    assert.equal(created.status, 201);
    const received = await hook.received.next();
    assert.equal(received.headers['content-type'], 'application/json');
    assert.ok(verified(SECRET, received), 'the signature is the HMAC-SHA256 of the body');
    assert.equal(verified('another-secret', received), false);
    assert.match(String(received.headers.traceparent), /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    assert.equal(received.headers['x-tenant'], 'acme');
    const body = JSON.parse(received.body) as MfxEvent;
    assert.equal(body.type, 'account.created');
    assert.equal(body.recordId, created.body.data.id);
    assertRedacted(received.body, 'the webhook body');
  });
});

describe('webhook retries', () => {
  const logger = memoryLogger();

  it('retries a 5xx and a network error, then succeeds', async () => {
    const hook = await receiver([503, 502]);
    try {
      await webhook({ url: hook.url, retries: 2, backoffMs: 0 })(event('w-1'));
      const calls = await hook.received.count(3);
      assert.equal(calls.length, 3);
      assert.equal(calls[0]!.headers['x-webhook-signature'], undefined, 'no secret, no signature');
    } finally {
      hook.server.close();
    }
    const closed = await receiver();
    await new Promise((resolve) => closed.server.close(resolve));
    await assert.rejects(webhook({ url: closed.url, retries: 1, backoffMs: 0 })(event('w-2')), /webhook 127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  it('treats a 4xx as final: no retry, the subscription dead-letters it at once', async () => {
    const hook = await receiver([410, 410, 410]);
    const bus = memoryBus({ logger });
    try {
      let tries = 0;
      const post = webhook({ url: hook.url, retries: 3, backoffMs: 0 });
      await bus.subscribe({ name: 'gone', patterns: ['order.created'], retries: 3, backoffMs: 0, dlqType: 'order.dead', handler: (e) => (tries++, post(e)) });
      const dead = await record(bus, 'dead', ['order.dead']);
      await bus.publish([event('w-3')]);
      const letter = await dead.next();
      assert.equal(letter.headers.original_id, 'w-3');
      assert.equal(tries, 1);
      assert.equal(hook.received.seen.length, 1);
      assert.ok(logger.lines.some((l) => l.message === 'event handler failed' && /answered 410; a 4xx is final/.test(String(l.fields.err))));
    } finally {
      await bus.close();
      hook.server.close();
    }
  });

  it('refuses a bad configuration', () => {
    assert.throws(() => webhook({ url: 'not a url' }), /webhook\(\) needs \{ url \}: an absolute http\(s\) URL, not "not a url"/);
    assert.throws(() => webhook({ url: 'ftp://x/' }), /webhook\(\): the url must be http or https, not ftp:/);
    assert.throws(() => webhook({ url: 'http://x/', retries: -1 }), /webhook\(\): retries must be a whole number of 0 or more, not -1/);
    assert.throws(() => webhook({ url: 'http://x/', timeout: 'soon' }), /webhook timeout must be a duration/);
  });
});

describe('email subscriber', () => {
  it('sends one e-mail per event through a nodemailer transport to a real SMTP server', async () => {
    const mails = new Recorder<{ from: string; to: string[]; data: string }>();
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({ from: String((session.envelope.mailFrom as { address: string }).address), to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString() });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    const bus = memoryBus({ logger: memoryLogger() });
    try {
      await bus.subscribe({
        name: 'ops-mail',
        patterns: ['order.*'],
        retries: 0,
        handler: email({ transport, from: 'mfx@example.com', to: 'ops@example.com', subject: (e) => `Order ${e.recordId} created`, text: (e) => `title: ${String(e.data?.title)}` }),
      });
      await bus.publish([event('mail-1')]);
      const [mail] = await mails.count(1);
      assert.equal(mail!.from, 'mfx@example.com');
      assert.deepEqual(mail!.to, ['ops@example.com']);
      assert.match(mail!.data, /^Subject: Order mail-1 created$/m);
      assert.match(mail!.data, /title: t/);
    } finally {
      await bus.close();
      transport.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
    assert.throws(() => email({ transport: {} as never, to: 'a@b', subject: 's' }), /email\(\) needs \{ transport \}: a nodemailer transport/);
  });
});
