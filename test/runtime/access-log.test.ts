import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AccessFields, accessLog, hundredths, jsonString } from '../../runtime/src/log/access.js';
import { infoMembers, lineLogger } from '../../runtime/src/log/logger.js';

const fields: AccessFields = {
  requestId: '6f1c2d3e-0000-4000-8000-000000000001',
  traceId: '6f1c2d3e00004000800000000000001a',
  method: 'GET',
  path: '/api/posts/"quoted"\\and\u00e9',
  status: 200,
  durationMs: 1.25,
  remoteAddress: '::ffff:127.0.0.1',
};

/** The lines a logger writes, without the time (it differs between two calls). */
function linesOf(serviceName: string | undefined, level: 'info' | 'warn', write: (log: ReturnType<typeof lineLogger>) => void): string[] {
  const lines: string[] = [];
  const log = lineLogger(serviceName, level, { write: (line: string) => lines.push(line.replace(/"time":\d+/, '"time":0')) });
  write(log);
  return lines;
}

describe('access log', () => {
  for (const serviceName of [undefined, 'blog']) {
    for (const model of [undefined, 'Post']) {
      it(`writes the line pino writes for the same fields (service ${serviceName ?? 'none'}, model ${model ?? 'none'})`, () => {
        const fast = linesOf(serviceName, 'info', (log) => accessLog(log, model, 'read')(fields));
        // The same logger without the text writer takes the fields as an object.
        const plain = linesOf(serviceName, 'info', (log) => accessLog({ debug: log.debug.bind(log), info: log.info.bind(log), warn: log.warn.bind(log), error: log.error.bind(log) }, model, 'read')(fields));
        assert.equal(fast.length, 1);
        assert.equal(fast[0], plain[0]);
        assert.deepEqual(JSON.parse(fast[0]).path, fields.path);
      });
    }
  }

  it('writes the line pino writes when the method, the address and the path change from line to line', () => {
    const variants: AccessFields[] = [
      fields,
      { ...fields, method: 'POST', path: '/api/posts', durationMs: 0.07 },
      { ...fields, method: undefined, remoteAddress: '10.0.0.7', durationMs: 12 },
      { ...fields, method: 'POST', remoteAddress: '10.0.0.7', path: '/api/p\u0001\ud800x', durationMs: 3.1 },
      { ...fields, remoteAddress: 'a"b', path: '/api/p\u2028\u{1F600}', durationMs: 1e12 },
      fields,
    ];
    const fast = linesOf('blog', 'info', (log) => {
      const access = accessLog(log, 'Post', 'read');
      for (const f of variants) access(f);
    });
    const plain = linesOf('blog', 'info', (log) => {
      const access = accessLog({ debug: log.debug.bind(log), info: log.info.bind(log), warn: log.warn.bind(log), error: log.error.bind(log) }, 'Post', 'read');
      for (const f of variants) access(f);
    });
    assert.equal(fast.length, variants.length);
    assert.deepEqual(fast, plain);
  });

  it('prints durations in hundredths as String() does', () => {
    for (let h = 0; h <= 1_000_000; h++) {
      const ms = Math.round(h) / 100;
      if (hundredths(ms) !== String(ms)) assert.fail(`${h}: ${hundredths(ms)} !== ${String(ms)}`);
    }
    for (const ms of [2 ** 31 / 100, 1e12, 123456789.12, 0.004, 0.005]) assert.equal(hundredths(Math.round(ms * 100) / 100), String(Math.round(ms * 100) / 100));
  });

  it('quotes strings as JSON.stringify does', () => {
    for (const value of ['', '/api/posts/1', 'é', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00x', '\u{1F600}', 'a\nb']) {
      assert.equal(jsonString(value), JSON.stringify(value));
    }
  });

  it('writes nothing above the info level', () => {
    const lines = linesOf('blog', 'warn', (log) => {
      assert.equal(typeof log[infoMembers], 'function');
      accessLog(log, 'Post', 'read')(fields);
    });
    assert.deepEqual(lines, []);
  });
});
