// diskStorage against the FileStorage contract shared with @mfx/storage-s3
// (test/support/storage-conformance.ts), in a fresh temporary directory.
import { diskStorageFactory } from '../support/file-storage.js';
import { storageConformance } from '../support/storage-conformance.js';

storageConformance(diskStorageFactory);
