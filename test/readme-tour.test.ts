/**
 * The README's tour, run as a user pastes it (issue 11): the `$ ` lines of the tour section's code blocks, in
 * order, in one bash shell, with `mnemara` on PATH as the setup puts it there (a link to bin/mnemara.js), the
 * scripted model as serve.ts starts it, real Docker. Each command must exit 0, and every line of the README's
 * output that holds no digit (no id, time or size) must appear in what the command printed, so the tour's text
 * cannot drift from the product. `/tmp/tour` becomes a temporary directory.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADD_DAYS, FIX_BUG, policy } from '../examples/two-runs/scripted-model.js';
import { startMessagesServer, type MessagesServer } from './support/messages-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One pasted command and the output the README shows under it. */
interface TourStep {
  command: string;
  output: string[];
}

/** The `$ ` commands of the code blocks between `## A tour` and the next `## ` heading, with their output. */
export function tourSteps(readme: string): TourStep[] {
  const start = readme.indexOf('\n## A tour');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const steps: TourStep[] = [];
  for (const block of section.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    for (const line of block[1]!.split('\n')) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
      else if (steps.length && line.trim()) steps.at(-1)!.output.push(line);
    }
  }
  return steps;
}

let tmp: string;
const servers: MessagesServer[] = [];

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'mnemara-tour-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(tmp, { recursive: true, force: true });
});

describe('README tour', () => {
  it('finds the tour in README.md: two runs, memory, patch, apply, the tests pass', () => {
    const commands = tourSteps(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((s) => s.command);
    expect(commands.length).toBeGreaterThanOrEqual(8);
    expect(commands.filter((c) => c.includes('mnemara run')).length).toBe(2);
    expect(commands.some((c) => c.startsWith('mnemara memory show'))).toBe(true);
    expect(commands.some((c) => c.includes('mnemara snapshot patch'))).toBe(true);
    expect(commands.some((c) => c.startsWith('mnemara apply'))).toBe(true);
  });

  it('runs line by line as pasted, each command exiting 0 and printing what the README shows', async () => {
    const fix = await startMessagesServer(policy(FIX_BUG));
    const days = await startMessagesServer(policy(ADD_DAYS));
    servers.push(fix, days);
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    symlinkSync(join(ROOT, 'bin', 'mnemara.js'), join(bin, 'mnemara'));
    const tour = join(tmp, 'tour');
    const steps = tourSteps(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    // One shell for the whole tour (cd and export carry over); a marker line after each command gives its status.
    const script = steps
      .map((s, i) => `${s.command.replaceAll('/tmp/tour', tour)} 2>&1\nprintf '\\n@@step ${i} %s\\n' "$?"`)
      .join('\n');
    const r = await execa('bash', ['-c', script], {
      cwd: ROOT,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: tmp, SCRIPTED_FIX: fix.url, SCRIPTED_DAYS: days.url },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const outputs = r.stdout.split(/^@@step \d+ \d+$/m);
    const codes = [...r.stdout.matchAll(/^@@step (\d+) (\d+)$/gm)].map((m) => Number(m[2]));
    expect(codes.length, r.stdout.slice(-2000)).toBe(steps.length);
    for (const [i, step] of steps.entries()) {
      expect(codes[i], `${step.command}\n${outputs[i]}`).toBe(0);
      const printed = outputs[i]!.replaceAll(tour, '/tmp/tour');
      for (const line of step.output.filter((l) => !/\d/.test(l) && l.trim() !== '…')) {
        expect(printed, `README output of: ${step.command}`).toContain(line.trimEnd());
      }
    }
  }, 600_000);
});
