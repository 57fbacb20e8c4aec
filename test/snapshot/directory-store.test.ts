import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';
import { snapshotStoreContract } from './store-contract.js';

snapshotStoreContract('directory store', () => openStore(tempDir()));
