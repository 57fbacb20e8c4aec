import { cp, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/version.js';
import { sandboxImageTag } from '../../src/sandbox/image-tag.js';

const LIB = join(PACKAGE_ROOT, 'scripts', 'setup', 'lib.sh');

async function bashTag(root: string): Promise<string> {
  const { stdout } = await execa('bash', ['-c', `source '${LIB}'; image_tag`], { cwd: root });
  return stdout.trim();
}

describe('sandbox image tag', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mnemara-tag-'));
    await cp(join(PACKAGE_ROOT, 'Dockerfile.sandbox'), join(root, 'Dockerfile.sandbox'));
    await cp(join(PACKAGE_ROOT, 'sandbox-image'), join(root, 'sandbox-image'), { recursive: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is the same in scripts/setup.sh and in sandboxImageTag(), for this checkout', async () => {
    const tag = await sandboxImageTag();
    expect(tag).toMatch(/^mnemara-sandbox:[0-9a-f]{12}$/);
    expect(await bashTag(PACKAGE_ROOT)).toBe(tag);
  });

  it('changes, in both, when a file, its executable bit, or a new file changes', async () => {
    const seen = new Set<string>();
    const check = async () => {
      const ts = await sandboxImageTag(root);
      expect(await bashTag(root)).toBe(ts);
      expect(seen.has(ts)).toBe(false);
      seen.add(ts);
    };
    await check();
    await writeFile(join(root, 'sandbox-image', 'bin', 'mnemara-kill'), '#!/bin/bash\nexit 0\n');
    await check();
    await chmod(join(root, 'sandbox-image', 'bin', 'mnemara-kill'), 0o644);
    await check();
    await writeFile(join(root, 'sandbox-image', 'ä new file'), 'x');
    await check();
    await writeFile(join(root, 'Dockerfile.sandbox'), '# changed\n', { flag: 'a' });
    await check();
  });
});
