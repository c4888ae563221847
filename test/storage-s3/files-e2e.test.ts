// The end-to-end suite of file fields, multipart writes and the /files routes
// (test/support/files-suite.ts) with s3Storage over s3rver in place of disk storage.
import { filesSuite } from '../support/files-suite.js';
import { s3StorageFactory } from '../support/s3-server.js';

filesSuite(s3StorageFactory);
