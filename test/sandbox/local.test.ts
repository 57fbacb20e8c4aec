import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { userInfo } from 'node:os';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { sandboxContract } from './contract.case.js';

sandboxContract({
  name: 'local',
  create: (sessionId) => LocalSandbox.create({ sessionId }),
  ownerName: userInfo().username,
});

describe('LocalSandbox', () => {
  it('kills background children that outlived their command when it closes', async () => {
    const sb = await LocalSandbox.create({ sessionId: 'local-leftover' });
    const marker = 1000 + Math.floor(Math.random() * 8000);
    const r = await sb.exec(`sleep ${marker} & echo $!`, { timeoutMs: 10_000 });
    const pid = Number(r.stdout.trim());
    expect(() => process.kill(pid, 0)).not.toThrow();
    await sb.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Dead: gone, or a zombie waiting for whichever process adopted it.
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').then((s) => s.split(') ')[1]?.[0], () => 'gone');
    expect(['gone', 'Z']).toContain(state);
    await expect(stat(sb.workspaceDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a bad default timeout, naming the option', async () => {
    await expect(LocalSandbox.create({ sessionId: 'bad', timeoutMs: -1 })).rejects.toThrow(/sandbox option execTimeoutMs = -1/);
  });
});
