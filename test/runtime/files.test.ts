// File fields, multipart writes and the /files routes on disk storage (the
// suite itself is test/support/files-suite.ts, shared with other storages).
import { diskStorageFactory } from '../support/file-storage.js';
import { filesSuite } from '../support/files-suite.js';

filesSuite(diskStorageFactory);
