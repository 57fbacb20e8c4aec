import { describe } from 'vitest';
import { s3TestEnv, freshS3Url, openS3 } from '../support/s3-env.js';
import { tempDir } from './helpers.js';
import { snapshotStoreContract } from './store-contract.js';

const env = s3TestEnv();

// The same contract the directory store passes, against a real S3-compatible server: each store is a fresh
// prefix in the bucket with its own local cache (a new machine).
describe.skipIf(env.skip !== undefined)('S3 store', () => {
  snapshotStoreContract('S3 store', () => openS3(freshS3Url(env.bucket!), tempDir('mnemara-s3cache-')));
});
