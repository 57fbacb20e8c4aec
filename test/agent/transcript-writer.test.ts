import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptWriter, redactDeep } from '../../src/agent/index.js';
import { TranscriptRecordSchema } from '../../src/transcript/schema.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mnemara-writer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('TranscriptWriter', () => {
  it('appends validated, redacted records with v and ts, one JSON line each, file mode 0600', async () => {
    const path = join(dir, 'sub', 'a.jsonl');
    const w = await TranscriptWriter.open(path, { redact: (s) => s.replaceAll('hunter2', '[REDACTED]') });
    await w.append({ type: 'message', turn: 0, role: 'user', text: 'password hunter2\u2028line' });
    await w.append({ type: 'tool_call', turn: 1, id: 't1', name: 'bash', input: { command: 'login -p hunter2', nested: ['hunter2'] } });
    await w.close();
    await w.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    const recs = lines.slice(0, 2).map((l) => TranscriptRecordSchema.parse(JSON.parse(l)));
    expect(recs[0]).toMatchObject({ v: 1, text: 'password [REDACTED]\u2028line' });
    expect(recs[1]).toMatchObject({ input: { command: 'login -p [REDACTED]', nested: ['[REDACTED]'] } });
    expect(Date.parse(recs[0]!.ts)).not.toBeNaN();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a record its schema rejects, and appends after a closed writer fail', async () => {
    const w = await TranscriptWriter.open(join(dir, 'b.jsonl'));
    await expect(w.append({ type: 'message', turn: -1, role: 'user', text: 'x' })).rejects.toMatchObject({ code: 'TRANSCRIPT_INVALID' });
    await w.close();
    await expect(w.append({ type: 'message', turn: 0, role: 'user', text: 'x' })).rejects.toMatchObject({ code: 'TRANSCRIPT_WRITE' });
    expect(await readFile(join(dir, 'b.jsonl'), 'utf8')).toBe('');
  });

  it('says what failed when the transcript cannot be opened', async () => {
    await writeFile(join(dir, 'a-file'), '');
    await expect(TranscriptWriter.open(join(dir, 'a-file', 'x.jsonl'))).rejects.toMatchObject({ code: 'TRANSCRIPT_WRITE' });
  });

  it('redactDeep leaves keys, numbers and null alone', () => {
    expect(redactDeep({ k: 'a', n: 1, z: null, l: [{ s: 'a' }] }, (s) => s.toUpperCase())).toEqual({ k: 'A', n: 1, z: null, l: [{ s: 'A' }] });
  });

  it('keeps every record written before the process is SIGKILLed mid-run', async () => {
    const path = join(dir, 'crash.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../support/scripts/crash-run.ts'), path, dir], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('READY')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const types = lines.map((l) => TranscriptRecordSchema.parse(JSON.parse(l)).type);
    expect(types).toEqual(['session_meta', 'message', 'message', 'tool_call', 'tool_result']);
    expect(lines[4]).toContain('before-crash');
  }, 30_000);
});
