// A source rule of the modules every request runs through: no function literal assigned straight
// to a property (`this.onClose = () => …`). V8 allocates such a literal in the old generation,
// taking it for a long-lived method, so a per-request closure made that way keeps everything it
// reaches (the request's rows, records and body) alive until the next full GC: a page with two
// includes peaked at 117 MB instead of 83 MB (docs/decisions.md, "The client-close listener and V8").
// Make the function in a local first, then store it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

const runtime = new URL('../../runtime/src/', import.meta.url).pathname;
const REQUEST_PATH = ['http', 'pipeline', 'store', 'db', 'query'];

/** `<something>.<property> = ` followed by an arrow function or a function expression. */
const ASSIGNED_LITERAL = /[\w\])]\.[A-Za-z_$][\w$]*\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::\s*[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

it('the request path assigns no function literal straight to a property', () => {
  const found: string[] = [];
  for (const dir of REQUEST_PATH) {
    for (const file of sources(join(runtime, dir))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.trimStart().startsWith('//') && !line.trimStart().startsWith('*') && ASSIGNED_LITERAL.test(line)) found.push(`${file.slice(runtime.length)}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  assert.deepEqual(found, [], 'make the function in a local, then assign the local');
});

it('the rule finds the pattern it names', () => {
  for (const line of ['this.clientClosed = () => {', 'socket.destroySoon = async () => {', 'x.y = (a: number): void => a', 'a.b = v => v', 'ctx.f = function () {}']) {
    assert.ok(ASSIGNED_LITERAL.test(line), line);
  }
  for (const line of ['const clientClosed = () => {', 'this.clientClosed = clientClosed;', 'this.claiming = (async () => {', 'this.status = CLIENT_CLOSED_STATUS;', 'if (a.b === (c) => d)']) {
    assert.ok(!ASSIGNED_LITERAL.test(line), line);
  }
});
