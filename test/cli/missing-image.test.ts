/**
 * `mnemara run --set sandbox.image=NAME` with an image the engine does not have (new-user trial, issue 10): the
 * hint said to run setup, which builds mnemara's own image, not the one named. A name other than mnemara's own
 * now says it does not exist on this engine and how to pull or build it or fix the name; mnemara's own tag still
 * says to run setup. Real process, real Docker engine.
 */
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { sandboxImageTag } from '../../src/sandbox/index.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;

async function runWithImage(image: string): Promise<{ exitCode: number; error: { code: string; message: string; hint: string } }> {
  const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '--workspace', dirs.workspace, '--task', 'x', '--set', `sandbox.image=${image}`, '--json'], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', PATH: process.env.PATH ?? '' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return { exitCode: r.exitCode ?? -1, error: (JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } }).error };
}

beforeAll(() => {
  dirs = scratch();
});
afterAll(() => dirs?.cleanup());

describe('a sandbox image the engine does not have', () => {
  it('named by sandbox.image: says it does not exist here and how to pull, build or fix it, not to run setup', async () => {
    const { exitCode, error } = await runWithImage('nosuchimage-mnemara-test');
    expect(exitCode).toBe(3);
    expect(error.code).toBe('IMAGE_MISSING');
    expect(error.message).toBe('the sandbox image nosuchimage-mnemara-test (sandbox.image) does not exist on this Docker engine');
    expect(error.hint).toContain('docker pull nosuchimage-mnemara-test');
    expect(error.hint).toContain('docker build -t nosuchimage-mnemara-test');
    expect(error.hint).toContain('unset sandbox.image');
    expect(error.hint).not.toMatch(/^run `npm run setup`/);
  }, 120_000);

  it("mnemara's own image tag, not built: still says to run setup", async () => {
    const { error } = await runWithImage('mnemara-sandbox:000000000000');
    expect(error).toMatchObject({ code: 'IMAGE_MISSING', message: 'the sandbox image mnemara-sandbox:000000000000 is not built' });
    expect(error.hint).toContain('npm run setup');
  }, 120_000);
});

async function doctorImageCheck(image: string): Promise<{ ok: boolean; detail: string; fix?: string }> {
  const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'doctor', '--set', `sandbox.image=${image}`, '--json'], {
    env: { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const checks = (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string; fix?: string }> }).checks;
  const image_ = checks.find((c) => c.name === 'image');
  if (!image_) throw new Error(`no image check in ${r.stdout}`);
  return image_;
}

// doctor said "image ok" (mnemara's own tag was built) while every run with sandbox.image failed with IMAGE_MISSING.
describe('doctor checks the image sessions will use', () => {
  it('a sandbox.image the engine does not have fails the image check with the same hint a run gives', async () => {
    const c = await doctorImageCheck('nosuchimage-mnemara-test');
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('the sandbox image nosuchimage-mnemara-test (sandbox.image) does not exist on this Docker engine');
    expect(c.fix).toContain('docker pull nosuchimage-mnemara-test');
  }, 120_000);

  it('a sandbox.image the engine has passes under its own name', async () => {
    const docker = new Docker();
    await docker.getImage(await sandboxImageTag()).tag({ repo: 'mnemara-doctor-test', tag: 'present' });
    try {
      const c = await doctorImageCheck('mnemara-doctor-test:present');
      expect(c.ok).toBe(true);
      expect(c.detail).toMatch(/^mnemara-doctor-test:present \(sandbox\.image\) present/);
    } finally {
      await docker.getImage('mnemara-doctor-test:present').remove({ noprune: true });
    }
  }, 120_000);
});
