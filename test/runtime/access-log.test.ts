import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AccessFields, accessLog } from '../../runtime/src/log/access.js';
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

  it('writes nothing above the info level', () => {
    const lines = linesOf('blog', 'warn', (log) => {
      assert.equal(typeof log[infoMembers], 'function');
      accessLog(log, 'Post', 'read')(fields);
    });
    assert.deepEqual(lines, []);
  });
});
