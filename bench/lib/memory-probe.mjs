// Preloaded into a server (`node --import ./bench/lib/memory-probe.mjs ...`) by
// bench/files-rss.ts: prints process.memoryUsage() every 50 ms as a `MEM {json}`
// line on stderr, so what RSS is made of (V8's heap, ArrayBuffers) can be told
// apart under load. Never keeps the process alive.
setInterval(() => process.stderr.write(`MEM ${JSON.stringify(process.memoryUsage())}\n`), 50).unref();
