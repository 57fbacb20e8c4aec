/**
 * New-user trial of issue 10: `kill -9` of a run mid-tool-call leaves its container holding the only copy of its
 * work (doctor: "holding unsaved work"); `sandbox prune` without --force removed it, and `recover` then had nothing
 * to adopt. Prune keeps a stranded sandbox (`src/session/stranded.ts`), lists it and says to run `mnemara recover`
 * first (exit 0); a leftover without unsaved work is still removed; --force removes both. Real Docker.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ioFailureError } from '../../src/config/io-errors.js';
import { dockerClient } from '../../src/sandbox/index.js';
import { crashedSandbox, volumesOf } from './hold.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.ts');
const docker = dockerClient();
const tag = `prune-stranded-${process.pid}`;
const killed = `${tag}-killed`;
const leftover = `${tag}-leftover`;
let home: string;
let stranded: string;
let left: string;

const mnemara = (args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, env: { MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'warn' } });
const exists = async (id: string) => docker.getContainer(id).inspect().then(() => true, () => false);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mnemara-prune-stranded-'));
  stranded = await crashedSandbox(killed, { MNEMARA_HOME: home });
  left = await crashedSandbox(leftover, { MNEMARA_HOME: home });
  // The killed session's record, never ended (SIGKILL): its container is stranded. The leftover has none.
  const child = execa('true');
  const dead = child.pid as number;
  await child;
  mkdirSync(join(home, 'transcripts'), { recursive: true });
  writeFileSync(
    join(home, 'transcripts', `${killed}.session.json`),
    JSON.stringify({ rolloutId: killed, lineage: 'app', pid: dead, host: hostname(), startedAt: new Date().toISOString() }),
  );
}, 180_000);

afterAll(async () => {
  for (const id of [stranded, left]) if (id) await execa('docker', ['rm', '-f', '-v', id], { reject: false });
  for (const s of [killed, leftover]) for (const v of await volumesOf(s)) await execa('docker', ['volume', 'rm', v], { reject: false });
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('sandbox prune and stranded sandboxes', () => {
  it('keeps a sandbox holding unsaved work, names it and says to recover first; removes it only with --force', async () => {
    const dry = await mnemara(['sandbox', 'prune', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('mnemara recover');

    const r = await mnemara(['sandbox', 'prune', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as { containers: { id: string }[]; stranded: { id: string; session: string; why: string }[] };
    expect(json.stranded.map((c) => c.id)).toEqual([stranded]);
    expect(json.stranded[0]!.why).toContain(killed);
    expect(json.containers.map((c) => c.id)).toEqual([left]);
    expect(await exists(stranded)).toBe(true);
    expect(await exists(left)).toBe(false);

    const text = await mnemara(['sandbox', 'prune']);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/hold unsaved work of killed sessions: run `mnemara recover` first/);
    expect(await exists(stranded)).toBe(true);

    const forced = await mnemara(['sandbox', 'prune', '--force', '--json']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as { containers: { id: string }[] }).containers.map((c) => c.id)).toContain(stranded);
    expect(await exists(stranded)).toBe(false);
  }, 180_000);

  it('the full-disk hint names `mnemara recover` before `mnemara sandbox prune`', () => {
    const err = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const hint = ioFailureError(err, 'moving the head of app', { home: '/h', workspaceSnapshot: '20261201T100000000Z-aaaaaaaaaa' }).hint ?? '';
    expect(hint).toContain('mnemara recover');
    expect(hint.indexOf('mnemara recover')).toBeLessThan(hint.indexOf('mnemara sandbox prune') === -1 ? Infinity : hint.indexOf('mnemara sandbox prune'));
  });
});
