/**
 * A token appended after the first 1 MiB of a file the run wrote (a log or a dump: `head -c 2200000 … > big.log;
 * echo KEY=sk-ant-… >> big.log`) was kept in the workspace snapshot with no word (eighth new-user trial, MEDIUM):
 * only the first 1 MiB of a big file was read. The last 1 MiB is read too. Local sandbox: the in-sandbox pass is
 * the same shell script on both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { leaveOutSecretFiles, SCAN_BYTES } from '../../src/session/secret-files.js';

const ANT = 'sk-ant-api03-FAKEbigLogTail9Xv2Lm7Rt4Wz8Kp1Ns6';
const GH = 'ghp_FAKEbigDumpHead0a1B2c3D4e5F6g7H8i9J0kLm';

describe('a token in a big file the run wrote', () => {
  let sb: LocalSandbox;
  afterAll(async () => {
    await sb?.close();
  });

  it('is found at its end as at its start, and the file is left out', async () => {
    sb = await LocalSandbox.create({ sessionId: 'secret-tail' });
    const since = Number((await sb.exec('date +%s')).stdout.trim()) - 1;
    const bytes = 2 * SCAN_BYTES + 100_000;
    await sb.exec(`head -c ${bytes} /dev/zero | tr '\\0' a > big.log && echo 'ANTHROPIC_API_KEY=${ANT}' >> big.log`);
    await sb.exec(`{ echo 'GITHUB_TOKEN=${GH}'; head -c ${bytes} /dev/zero | tr '\\0' b; } > dump.txt`);
    const left: string[] = [];
    const found = await leaveOutSecretFiles(sb, since, {
      wasThere: () => false,
      keep: false,
      leaveOut: async (rel) => {
        left.push(rel);
        return `/tmp/left/${rel}`;
      },
      skipDirs: [],
      skip: new Set(),
    });
    expect(found.map((f) => [f.path, f.kinds, f.action])).toEqual([
      ['big.log', ['anthropic_key'], 'left-out'],
      ['dump.txt', ['github_token'], 'left-out'],
    ]);
    expect(left.sort()).toEqual(['big.log', 'dump.txt']);
  }, 60_000);
});
