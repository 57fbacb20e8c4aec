import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

describe('a store path that cannot hold a store', () => {
  it('a file where the store should be is a usage error naming the path, not a raw ENOTDIR', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const err = await openStore(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MnemaraError);
    expect((err as MnemaraError).code).toBe('INVALID_INPUT');
    expect((err as MnemaraError).message).toContain(file);
    expect((err as MnemaraError).hint).toMatch(/--store/);
  });
});
