import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { BetaToolBash20250124 } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Sandbox, ExecResult } from '../../sandbox/types.js';
import type { ToolOutput } from './types.js';
import { parseInput } from './input.js';

/** The tool definition Claude knows: Anthropic's bash tool, `bash_20250124`. */
export const bashDefinition: BetaToolBash20250124 = { type: 'bash_20250124', name: 'bash' };

const BashInput = z.object({ command: z.string().optional(), restart: z.boolean().optional() });

// The line the wrapper prints on exit carries a fresh nonce per call, so that neither the command's own output
// nor a background process still writing to stderr after the exit can forge it or hide it.
const cwdMark = (): string => `__MNEMARA_CWD_${randomBytes(8).toString('hex')}__=`;

// Each call is one `bash -c` in the sandbox (no long-lived shell to wedge or leak). What a persistent shell
// would keep that matters most, the working directory, is carried over: the wrapper reports `$PWD` on exit
// and the next call starts there. The command goes in through the environment and `eval`, so no quoting of
// the model's text is needed and a syntax error is reported by bash like any other failure.
const WRAPPER = [
  'cd -- "$MNEMARA_CWD" 2>/dev/null || cd -- "$MNEMARA_ROOT"',
  '__mnemara_mark=$MNEMARA_MARK',
  `trap 'printf "\\n%s%s\\n" "$__mnemara_mark" "$PWD" >&2' EXIT`,
  '__mnemara_command=$MNEMARA_COMMAND',
  'unset MNEMARA_COMMAND MNEMARA_CWD MNEMARA_ROOT MNEMARA_MARK',
  'eval "$__mnemara_command"',
].join('\n');

/** The state of the `bash` tool across calls of one run: the working directory. */
export class BashSession {
  private cwd: string;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly limits: { execTimeoutMs?: number; maxOutputBytes?: number },
    /** Aborting kills the command running now (ExecOptions.signal). */
    private readonly stopSignal?: AbortSignal,
  ) {
    this.cwd = sandbox.workspaceDir;
  }

  /** Runs one `bash_20250124` call: `{command}` or `{restart: true}`. Bad input throws `ToolError`. */
  async run(raw: unknown): Promise<ToolOutput> {
    const input = parseInput(BashInput, raw, 'bash');
    if (input.restart) {
      this.cwd = this.sandbox.workspaceDir;
      return { text: 'The bash tool has been restarted (working directory reset to the workspace).' };
    }
    if (input.command === undefined || input.command.trim() === '') {
      return { text: 'No command given: pass {"command": "..."} or {"restart": true}.', isError: true };
    }
    const mark = cwdMark();
    const exec = await this.sandbox.exec(['bash', '-c', WRAPPER], {
      cwd: this.sandbox.workspaceDir,
      env: { MNEMARA_COMMAND: input.command, MNEMARA_CWD: this.cwd, MNEMARA_ROOT: this.sandbox.workspaceDir, MNEMARA_MARK: mark },
      ...(this.limits.execTimeoutMs !== undefined ? { timeoutMs: this.limits.execTimeoutMs } : {}),
      ...(this.limits.maxOutputBytes !== undefined ? { maxOutputBytes: this.limits.maxOutputBytes } : {}),
      ...(this.stopSignal ? { signal: this.stopSignal } : {}),
    });
    const { stderr, cwd } = takeCwd(exec.stderr, mark);
    if (cwd) this.cwd = cwd;
    const result: ExecResult = { ...exec, stderr };
    return { text: formatExec(result, this.limits.execTimeoutMs), exec: result, isError: exec.timedOut || exec.interrupted === true };
  }
}

/** Takes the wrapper's exit line out of stderr wherever it is (background output may follow it). */
function takeCwd(stderr: string, mark: string): { stderr: string; cwd?: string } {
  const at = stderr.lastIndexOf(`\n${mark}`);
  if (at === -1) return { stderr };
  const start = at + 1 + mark.length;
  const end = stderr.indexOf('\n', start);
  const cwd = stderr.slice(start, end === -1 ? undefined : end);
  return { stderr: stderr.slice(0, at) + (end === -1 ? '' : stderr.slice(end + 1)), cwd };
}

/** What the model sees of a command: stdout, stderr (labelled), then the exit code and any limit that fired. */
export function formatExec(r: ExecResult, timeoutMs?: number): string {
  const parts: string[] = [];
  if (r.stdout !== '') parts.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr !== '') parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
  const notes = [`exit code: ${r.exitCode ?? 'unknown'}`];
  if (r.timedOut) notes.push(`timed out${timeoutMs ? ` after ${timeoutMs} ms` : ''}; the process tree was killed`);
  if (r.interrupted) notes.push('stopped: the run was interrupted (Ctrl-C or SIGTERM) and the process tree was killed');
  if (r.oomKilled) notes.push('killed: the sandbox ran out of memory');
  if (r.truncated) notes.push('output truncated: the middle was dropped');
  parts.push(`[${notes.join('; ')}]`);
  return parts.join('\n');
}
