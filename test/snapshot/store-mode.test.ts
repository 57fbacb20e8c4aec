/**
 * A new snapshot store is readable by its owner only (twelfth new-user trial, F15): `transcripts/` was 0600, but
 * the store's blobs, which hold the same transcripts and the workspace files mnemara reported as holding secrets,
 * were in world-readable directories. An existing store keeps its mode (one shared on purpose stays shared).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';

const root = mkdtempSync(join(tmpdir(), 'mnemara-store-mode-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the mode of a snapshot store', () => {
  it('is 0700 when mnemara creates it', async () => {
    const dir = join(root, 'home', 'store');
    await openStore(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('stays as it was for a store that exists', async () => {
    const dir = join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o750);
    await openStore(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o750);
  });
});
