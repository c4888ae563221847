// diskStorage against the FileStorage contract shared with @mfx/storage-s3
// (test/support/storage-conformance.ts), in a fresh temporary directory.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { diskStorage } from '../../runtime/src/files/disk.js';
import { storageConformance } from '../support/storage-conformance.js';

function filesUnder(dir: string, at = dir): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(at, entry.name)) : [relative(dir, join(at, entry.name))],
  );
}

storageConformance('diskStorage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-disk-'));
  return { storage: diskStorage({ dir }), files: () => filesUnder(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});
