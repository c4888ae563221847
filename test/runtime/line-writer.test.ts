// The log's writer: batched lines reach their file descriptor whole and in order, also through a pipe
// whose reader is slower than the writer (EAGAIN, partial writes). A reader that goes away: cli-usage and cli-serve.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LineWriter } from '../../runtime/src/log/line-writer.js';
import { root } from '../support/cli.js';

/** Lines of every length around the batch size, some with characters of more than one byte. */
const lines = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"text":"${(i % 7 === 0 ? 'é€' : 'x').repeat(i % 97)}"}\n`);

/** A LineWriter on a fresh regular file, closed and removed after `test`. */
async function withLogFile(test: (file: string, writer: LineWriter) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-lines-'));
  const file = join(dir, 'out.log');
  const fd = openSync(file, 'w');
  try {
    await test(file, new LineWriter(fd));
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('LineWriter', () => {
  it('writes every line once, in order, by settle(); flushSync() writes what is left', () =>
    withLogFile(async (file, writer) => {
      for (const line of lines.slice(0, 2000)) writer.write(line);
      // A regular file is written in the call: every full batch is there already, and flush() writes the rest.
      assert.ok(readFileSync(file, 'utf8').length >= 16 * 1024);
      writer.flush();
      assert.equal(readFileSync(file, 'utf8'), lines.slice(0, 2000).join(''));
      await writer.settle();
      assert.equal(readFileSync(file, 'utf8'), lines.slice(0, 2000).join(''));
      // Fewer lines than a batch: nothing is being written when flushSync() writes them (a batch under way is left to its write).
      for (const line of lines.slice(2000, 2040)) writer.write(line);
      writer.flushSync();
      assert.equal(readFileSync(file, 'utf8'), lines.slice(0, 2040).join(''));
    }));

  it('long lines: one that needs measuring, one filling a batch, one longer than a batch buffer, between short ones', () =>
    withLogFile(async (file, writer) => {
      // Three-byte characters, so a line's bytes are three times its length; 40,000 of them are 120 KB, past a 32 KiB buffer.
      const long = [6000, 11000, 16383, 16384, 40000, 5].map((n, i) => `{"n":${i},"text":"${'€'.repeat(n)}"}\n`);
      const expected: string[] = [];
      for (const line of long) {
        for (const short of lines.slice(0, 50)) {
          writer.write(short);
          expected.push(short);
        }
        writer.write(line);
        expected.push(line);
      }
      await writer.settle();
      assert.equal(readFileSync(file, 'utf8'), expected.join(''));
    }));

  it('through a pipe the reader empties only later: every line, in order', async () => {
    // The child writes about 5 MB to its stdout, a non-blocking pipe (as mfx serve's is) holding 64 KiB, before this process reads any.
    // Some lines are long (6,000 and 40,000 three-byte characters): the asynchronous writer measures them and gives the longest a batch of its own.
    const script = `
      import { LineWriter } from ${JSON.stringify(join(root, 'runtime/src/log/line-writer.ts'))};
      process.stdout;
      const writer = new LineWriter(1);
      for (let round = 0; round < 10; round++) for (let i = 0; i < 3000; i++) writer.write(\`{"n":\${round * 3000 + i},"text":"\${i % 1000 === 999 ? '€'.repeat(40000) : i % 1000 === 500 ? '€'.repeat(6000) : 'y'.repeat(i % 97)}"}\\n\`);
      writer.flush();
      process.stderr.write('written\\n');
      await writer.settle();
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('written') && resolve()));
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout.resume();
    assert.equal(await new Promise((resolve) => child.once('close', resolve)), 0);
    const numbers = text.split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { n: number }).n);
    assert.deepEqual(numbers, Array.from({ length: 30000 }, (_, i) => i));
  });
});
