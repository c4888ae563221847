// Preloaded into a server by bench/allocations.ts (`--import`): V8's sampling heap profiler, with
// the objects the collector has already freed kept in the profile, so it counts what a request
// allocates rather than what survives. The first SIGUSR2 starts it and writes `<dir>/<pid>.started`;
// the second writes the profile to `<dir>/<pid>.heapprofile`. <dir> is MFX_HEAP_SAMPLES.
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.MFX_HEAP_SAMPLES;
const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
let sampling = false;
process.on('SIGUSR2', async () => {
  if (!sampling) {
    sampling = true;
    // One sample every 64 bytes on average: fine enough for per-request sizes of a few hundred bytes.
    await post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    writeFileSync(join(dir, `${process.pid}.started`), '');
    return;
  }
  const { profile } = await post('HeapProfiler.stopSampling');
  // Renamed into place whole, so a reader that sees the name reads all of it.
  writeFileSync(join(dir, `${process.pid}.partial`), JSON.stringify(profile));
  renameSync(join(dir, `${process.pid}.partial`), join(dir, `${process.pid}.heapprofile`));
});
