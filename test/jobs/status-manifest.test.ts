// The JobStatus model's manifest is generated from job-status.model.ts (npm run jobs:manifest): it must be what a build makes of it now.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { manifestModule, statusManifestText } from '../../scripts/jobs/status-manifest.js';

it('job-status.manifest.ts is what mfx build makes of job-status.model.ts (run npm run jobs:manifest)', async () => {
  assert.equal(await readFile(manifestModule, 'utf8'), await statusManifestText());
});
