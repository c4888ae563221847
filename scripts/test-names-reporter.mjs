// A node:test reporter for scripts/test-alone.mjs: one JSON line per test
// (not per suite) with its file and name, so each can be run on its own.
export default async function* testNames(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, details, skip } = event.data;
    if (details?.type === 'suite') continue;
    yield `${JSON.stringify({ file, name, skipped: Boolean(skip) })}\n`;
  }
}
