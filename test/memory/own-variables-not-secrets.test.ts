/**
 * Issue 10, fifth trial (low): the deterministic pipeline made mnemara's own `MNEMARA_EXEC_TOKEN` (every command
 * in the sandbox carries it; `env` shows it) into a "secrets present in the environment" pitfall. mnemara's own
 * variables never count, and their values are redacted wherever the output is stored.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { redact, redactDeep } from '../../src/memory/redact.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (b: TranscriptBuilder) => extractRollout({ records: b.end(), transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

/** `env` output of a sandbox command: the image's variables and mnemara's own, in the order env prints them. */
function envOutput(token: string, extra: string[] = []): string {
  return ['HOSTNAME=4f1c2a9b7d3e', 'HOME=/home/agent', `MNEMARA_EXEC_TOKEN=${token}`, 'PATH=/usr/local/bin:/usr/bin:/bin', ...extra, 'PWD=/workspace', ''].join('\n');
}

describe("mnemara's own variables in the sandbox", () => {
  for (const token of [randomBytes(8).toString('hex'), randomBytes(16).toString('hex'), 'a1b2c3d4e5f60718']) {
    it(`env showing MNEMARA_EXEC_TOKEN=${token.length} hex chars: redacted, and no pitfall`, async () => {
      const out = envOutput(token);
      expect(redact(out)).not.toContain(token);
      expect(JSON.stringify(redactDeep({ type: 'tool_result', output: out }))).not.toContain(token);
      for (const cmd of ['env', 'printenv', 'env | sort']) {
        const e = await extract(new TranscriptBuilder('Why do the credentials checks fail?').bash(cmd, 0, redact(out)).say('No credentials or tokens are set here.'));
        expect(e.memories.map((m) => m.text).join('\n'), cmd).not.toMatch(/Secrets are present/);
      }
    });
  }

  it("a real secret beside it still makes the pitfall, naming only the workspace's variable", async () => {
    const out = envOutput(randomBytes(8).toString('hex'), [`GITHUB_TOKEN=ghp_${'Qw3eRt5yUi7oPa9sDf2gHj4kLz6xCv8bNm1q'}`]);
    const e = await extract(new TranscriptBuilder('Why do the credentials checks fail?').bash('env', 0, redact(out)).say('A GitHub token is set in the environment; the tests must never use it.'));
    const text = e.memories.map((m) => m.text).join('\n');
    expect(text).toMatch(/Secrets are present in the environment \(GITHUB_TOKEN\)/);
    expect(text).not.toMatch(/MNEMARA/);
  });
});
