import { credentialMessage } from '../../session/credential-files.js';
import { secretFileMessage, type SecretFile } from '../../session/secret-files.js';
import { secretKeyFileMessage } from '../../session/secret-key-files.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import type { FlagValue } from '../../config/load.js';
import type { ProgressEvent } from '../../config/progress.js';
import { runSession, SESSION_STEPS, type SessionEvent, type SessionResult } from '../../session.js';
import { EXIT, emit, progressPrinter, reportError, shellWord, writeErr } from '../output.js';
import { applyJson, applySnapshot, describeApply } from './apply.js';
import type { ApplyResult } from '../../snapshot/apply.js';
import { addConfigOptions, loadCliConfig, storeFlags, type ConfigCliOptions } from './config.js';
import { formatTimings } from '../timings.js';
import { memoryStore } from '../memory-source.js';
import { lineageOfRef, snapshotRef } from '../snapshot-ref.js';
import { keepAllSandboxes } from '../../sandbox/index.js';

interface RunCliOptions extends ConfigCliOptions {
  workspace: string;
  task?: string;
  taskFile?: string;
  lineage?: string;
  from?: string;
  memoryFrom?: string;
  model?: string;
  maxTurns?: string;
  network?: string;
  tools?: string;
  memoryRead: boolean;
  memoryGenerate: boolean;
  liveUpdate: boolean;
  keepSandbox?: boolean;
  apply?: boolean;
  json?: boolean;
  timings?: boolean;
}

async function readTask(opts: RunCliOptions): Promise<string> {
  if (opts.task !== undefined && opts.taskFile !== undefined) {
    throw new MnemaraError('USAGE', '--task and --task-file cannot be combined', { hint: 'Give the task one way.' });
  }
  let task = opts.task;
  if (opts.taskFile !== undefined) {
    try {
      task = opts.taskFile === '-' ? await readStdin() : await readFile(opts.taskFile, 'utf8');
    } catch (err) {
      throw new MnemaraError('NOT_FOUND', `cannot read --task-file ${opts.taskFile}: ${(err as Error).message}`, {
        hint: 'Pass a readable file, or - to read the task from stdin.',
      });
    }
  }
  if (opts.taskFile !== undefined && (task ?? '').trim() === '') {
    const what = opts.taskFile === '-' ? 'stdin (--task-file -) gave' : `--task-file ${opts.taskFile} holds`;
    throw new MnemaraError('USAGE', `${what} no task: it is empty`, {
      hint: opts.taskFile === '-' ? 'Pipe the task in (echo "what to do" | mnemara run --task-file - …), or pass --task "what to do".' : `Write the task into ${opts.taskFile}, or pass --task "what to do".`,
    });
  }
  if (task === undefined || task.trim() === '') {
    throw new MnemaraError('USAGE', 'no task given', { hint: 'Pass --task "what to do" or --task-file FILE.' });
  }
  return task.trim();
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Flags that set configuration options, with the flag's name as their source (only when given on the command line). */
function configFlags(cmd: Command, opts: RunCliOptions): FlagValue[] {
  const given = (key: string): boolean => cmd.getOptionValueSource(key) === 'cli';
  const flags: FlagValue[] = [];
  if (opts.model !== undefined) flags.push({ path: 'agent.model', value: opts.model, flag: '--model' });
  if (opts.maxTurns !== undefined) flags.push({ path: 'agent.maxTurns', value: opts.maxTurns, flag: '--max-turns' });
  if (opts.network !== undefined) flags.push({ path: 'sandbox.network', value: opts.network, flag: '--network' });
  if (opts.tools !== undefined) flags.push({ path: 'agent.tools', value: opts.tools, flag: '--tools' });
  if (given('memoryRead')) flags.push({ path: 'memory.read', value: opts.memoryRead, flag: '--no-memory-read' });
  if (given('memoryGenerate')) flags.push({ path: 'memory.generate', value: opts.memoryGenerate, flag: '--no-memory-generate' });
  if (given('liveUpdate')) flags.push({ path: 'agent.liveUpdate', value: opts.liveUpdate, flag: '--no-live-update' });
  return flags;
}

/**
 * Live lines on stderr: one per session step as it ends, the steps of the modules below indented under it,
 * a line when the agent starts, and throttled progress of long steps (restore, snapshot of a big tree).
 */
function stepPrinter(enabled: boolean): (event: ProgressEvent) => void {
  const throttled = progressPrinter(enabled);
  const steps = new Set<string>(SESSION_STEPS);
  return (e) => {
    if (!enabled) return;
    if (e.phase === 'progress') return throttled(e);
    if (e.phase === 'start') {
      if (e.step === 'agent') writeErr('… agent running (Ctrl-C stops the command running now, ends the run and still saves it; a second Ctrl-C quits at once, keeping the sandbox for `mnemara recover`)\n');
      return;
    }
    const secs = e.elapsedMs !== undefined ? ` (${(e.elapsedMs / 1000).toFixed(1)} s)` : '';
    const line = `${e.step}${e.message ? `: ${e.message}` : ''}`;
    const mark = e.ok === false ? '✗' : '✓';
    writeErr(steps.has(e.step) ? `${mark} ${line}${secs}\n` : `    ${e.ok === false ? '✗' : '·'} ${line}\n`);
  };
}

/** How often a model call with no answer yet is said to be still waiting (ms): every 30 s, or 4 times per attempt under a shorter request timeout. */
const waitingEveryMs = (timeoutMs: number): number => Math.max(500, Math.min(30_000, Math.floor(timeoutMs / 4)));

/**
 * Says every 30 s that a model call has had no answer yet: a gateway that accepts the connection and never
 * answers gave five minutes of silence per attempt (thirteenth trial F5). Returns the event handler and a stop.
 */
function waitingPrinter(enabled: boolean, timeoutMs: number): { onEvent: (event: SessionEvent) => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearInterval(timer);
    timer = undefined;
  };
  const onEvent = (event: SessionEvent): void => {
    if (!enabled) return;
    if (event.type === 'model' && event.phase === 'waiting') {
      stop();
      const since = Date.now();
      timer = setInterval(() => {
        const s = Math.round((Date.now() - since) / 1000);
        writeErr(`  … waiting for the model (turn ${event.turn}): ${s} s, no answer yet (an attempt gives up after ${(timeoutMs / 1000).toFixed(timeoutMs < 10_000 ? 1 : 0)} s and is retried: anthropic.requestTimeoutMs; Ctrl-C ends the run and saves it)\n`);
      }, waitingEveryMs(timeoutMs));
      timer.unref();
    } else if (event.type === 'progress' ? event.progress.step !== 'agent' : event.type !== 'notice') stop();
  };
  return { onEvent, stop };
}

/** A live line per tool call (on stderr, with the progress lines). */
function toolPrinter(enabled: boolean): (event: SessionEvent) => void {
  return (event) => {
    if (!enabled || event.type !== 'tool' || event.tool.phase !== 'end') return;
    const t = event.tool;
    const status = t.exitCode !== undefined && t.exitCode !== null ? `exit ${t.exitCode}` : t.isError ? 'error' : 'ok';
    const ms = t.durationMs !== undefined ? `, ${(t.durationMs / 1000).toFixed(1)} s` : '';
    writeErr(`  [turn ${t.turn}] ${t.name}: ${oneLine(t.summary)} → ${status}${ms}\n`);
  };
}

const oneLine = (s: string, max = 100): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The human summary of a session. */
export function formatSummary(r: SessionResult, host: { dir: string; applied?: ApplyResult; storeFlags?: string } = { dir: '.' }): string {
  // The flags that chose the home and the store (\`--store DIR\`): a printed command without them looks elsewhere.
  const g = host.storeFlags ?? '';
  const secs = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(1)} s`;
  const n = (x: number): string => x.toLocaleString('en-US');
  const lines = [
    '',
    `outcome     ${r.outcome}${r.agentError ? ` (${r.agentError})` : ''}`,
    `turns       ${r.turns}`,
    `tokens      ${n(r.usage.inputTokens)} in, ${n(r.usage.outputTokens)} out, ${n(r.usage.cacheReadTokens)} cache read, ${n(r.usage.cacheCreationTokens)} cache write`,
    `time        ${secs(r.timings.totalMs)} (agent ${secs(r.timings.agent)}, restore ${secs(r.timings.restore)}, snapshot ${secs(r.timings['snapshot-workspace'])}, memory ${secs(r.timings['memory-pipeline'])})`,
    `rollout     ${r.nothingSaved ? 'none (ended before the model\'s first reply)' : r.rolloutId}`,
    `workspace   snapshot ${r.workspaceSnapshot ?? '(none)'}`,
    // A run that ended before the model's first reply has no rollout: "pending" and a transcript path that does not
    // exist contradicted the closing line (trial 23 F15, trial 24).
    `memory      ${r.memorySnapshot ? `snapshot ${r.memorySnapshot}` : r.pipelineError ? `NOT consolidated: ${r.pipelineError}` : r.memorySkipped ? 'not generated: the run was stopped (SIGTERM); the rollout is pending' : r.nothingSaved ? 'none (no rollout)' : 'not generated (rollout pending)'}`,
    `lineage     ${r.lineage} → head ${r.head ?? '(unchanged)'}${r.headConflicts ? ` (head moved ${r.headConflicts}× meanwhile; merged)` : ''}`,
  ];
  if (r.lessons) {
    lines.push(`lessons     ${r.lessons.added.length} added, ${r.lessons.changed.length} changed, ${r.lessons.removed.length} removed (${r.lessons.total} in MEMORY.md)`);
    for (const id of r.lessons.added) lines.push(`  + ${oneLine(r.lessons.text[id] ?? id, 110)}`);
    for (const id of r.lessons.changed) lines.push(`  ~ ${oneLine(r.lessons.text[id] ?? id, 110)}`);
    for (const id of r.lessons.removed) {
      const where = !r.lessons.archived || r.lessons.archived.includes(id) ? `memories/archive.md; mnemara memory restore ${id}` : 'dropped, not archived: not restorable';
      lines.push(`  - ${oneLine(r.lessons.text[id] ?? id, 96)} [${id}] (${where})`);
    }
  }
  if (r.replacedHead) {
    lines.push(
      `code        replaced the head's: this run started from ${r.start.snapshotId ?? 'another snapshot'}, not the head; the head before it (${r.replacedHead.snapshot}) is kept on branch ${r.replacedHead.name}`,
      `            compare: mnemara snapshot diff${g} ${r.replacedHead.snapshot} ${r.head ?? r.workspaceSnapshot}   bring it back: mnemara lineage reset${g} ${r.lineage} ${r.replacedHead.snapshot}`,
    );
  }
  if (r.branch) {
    lines.push(
      `code        NOT on the head: another session moved it first; kept on branch ${r.branch.name} (snapshot ${r.branch.snapshot})`,
      `            get it: mnemara snapshot restore${g} ${r.branch.snapshot} DIR   compare: mnemara snapshot diff${g} ${r.head ?? r.branch.snapshot} ${r.branch.snapshot}`,
      `            make it the head: mnemara lineage reset${g} ${r.lineage} ${r.branch.snapshot}`,
    );
  }
  for (const f of r.credentialFiles ?? []) lines.push(`credential  ${credentialMessage(f)}`);
  for (const f of r.secretFiles ?? []) lines.push(`secret      ${secretFileMessage({ ...f, kinds: f.kinds as SecretFile['kinds'] })}`);
  for (const f of r.secretKeyFiles ?? []) lines.push(`secret      ${secretKeyFileMessage(f)}`);
  // Where the set-aside copies are as one folder, and that they do not stay for ever (they hold secrets).
  const aside = [...(r.credentialFiles ?? []), ...(r.secretFiles ?? [])].filter((f) => f.savedAt);
  if (aside.length) {
    const dir = aside[0]!.savedAt!.slice(0, aside[0]!.savedAt!.length - aside[0]!.path.length - 1);
    lines.push(`left out    ${aside.length} file(s) set aside in ${dir}/ (only you can read them); \`mnemara gc\` removes them after snapshot.leftOutDays (7 days by default), \`mnemara gc --left-out-now\` at once`);
  }
  if (r.leftoverProcesses) lines.push(`processes   ${r.leftoverProcesses} left running by the agent's commands were stopped before the workspace snapshot`);
  for (const n of r.notices ?? []) lines.push(`${n.kind === 'host-memory-replaced' ? 'note' : 'warning'}     ${n.message}`, `            ${n.hint}`);
  if (r.adopted?.length) lines.push(`adopted     ${r.adopted.length} orphaned rollout(s) of earlier sessions: ${r.adopted.join(', ')}`);
  for (const b of r.adoptedBranches ?? []) lines.push(`            their code is on branch ${b.name}: mnemara snapshot restore${g} ${b.name} DIR (or snapshot diff${g} ${b.name} ${r.head ?? 'HEAD'})`);
  if (r.transcriptPath) lines.push(`transcript  ${r.transcriptPath}`);
  lines.push(...whereTheResultIs(r, host));
  if (r.keptSandbox) lines.push(`sandbox     kept: ${r.keptSandbox} (remove with mnemara sandbox prune${g})`);
  if (r.pipelineError || r.memorySkipped) lines.push('', 'The rollout stays pending; the next session on the lineage (or `mnemara recover`) extracts it.');
  return lines.join('\n');
}

/**
 * The snapshot that holds this run's code: its branch's when another session moved the head first (the head then
 * holds that session's code: trial 23 F14, `run --apply` wrote the other run's changes and not its own), else the
 * head, else the workspace snapshot; `undefined` when the run left none.
 */
export function runCodeSnapshot(r: Pick<SessionResult, 'branch' | 'head' | 'workspaceSnapshot'>): string | undefined {
  return r.branch?.snapshot ?? r.head ?? r.workspaceSnapshot ?? undefined;
}

/**
 * The host directory is never changed by a run: say so, where the result is, and the command that brings it
 * back (or what `--apply` wrote).
 */
function whereTheResultIs(r: SessionResult, host: { dir: string; applied?: ApplyResult; storeFlags?: string }): string[] {
  const g = host.storeFlags ?? '';
  if (r.nothingSaved) return ['', `ended before the model's first reply: nothing was done, so nothing was saved (no snapshot, no rollout); ${host.dir} was not changed.`];
  if (host.applied) return ['', describeApply(host.applied)];
  // Code that lost the race is on its branch; the head holds the other session's (trial 23 F7: "bring it" applied that).
  if (r.branch) {
    return [
      '',
      `${host.dir} was not changed: this run's code is on branch ${r.branch.name} (snapshot ${r.branch.snapshot}), not on the head of lineage ${r.lineage}, which holds another session's.`,
      `  see it:   mnemara snapshot patch${g} ${r.branch.snapshot} -w ${shellWord(host.dir)}`,
      `  bring it: mnemara apply${g} -w ${shellWord(host.dir)} --from ${r.branch.name}`,
    ];
  }
  const result = r.head ?? r.workspaceSnapshot;
  if (!result) return ['', `${host.dir} was not changed, and the run left no snapshot.`];
  return [
    '',
    `${host.dir} was not changed: the result is snapshot ${result}, the head of lineage ${r.lineage}.`,
    `  see it:   mnemara snapshot patch${g} ${result} -w ${shellWord(host.dir)}`,
    `  bring it: mnemara apply${g} -w ${shellWord(host.dir)} --lineage ${r.lineage}   (or run with --apply)`,
  ];
}

/** Registers `mnemara run`: one session, start to finish. */
export function registerRunCommand(program: Command): void {
  const cmd = program
    .command('run')
    .summary('run one agent session: restore, run, snapshot, learn, advance the lineage')
    .description(
      'Run one agent session: restore the workspace (lineage head, --from snapshot, or a fresh copy) into a ' +
        'hardened sandbox, run Claude on the task, snapshot the workspace, turn the transcript into lessons and ' +
        'consolidate them into memories/MEMORY.md, snapshot the memory and move the lineage head.\n\n' +
        'Exit codes: 0 the agent completed; 1 it did not (error, turn or token limit, interrupted; the work is ' +
        'still saved); 2 bad input; 3 mnemara failed. Ctrl-C stops the command running in the sandbox, ends the run ' +
        'and still saves it; SIGTERM (a CI cancel, `docker stop`) does the same and leaves the memory step to the next ' +
        'session; a second Ctrl-C or SIGTERM quits at once and leaves the sandbox for `mnemara recover`.',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  mnemara run -w . --task "Make the failing test pass"',
        '  mnemara run -w repo --task-file TASK.md --lineage ci/main --memory-from ci/main --json   # CI: fresh code, lineage memory',
        '  mnemara run -w repo --from 20261129T175510824Z-000051de --task "Try again from there"',
        '  ANTHROPIC_BASE_URL=http://127.0.0.1:8080 mnemara run -w . --task "..."                  # any Messages-API endpoint',
      ].join('\n'),
    )
    .option('-w, --workspace <dir>', 'host directory of the workspace', '.')
    .option('-t, --task <text>', 'what the agent should do')
    .option('--task-file <file>', 'read the task from a file (- for stdin)')
    .option('-l, --lineage <name>', 'lineage to start from and advance (default: host/owner/repo of the git remote, else the directory name plus a hash of its path)')
    .option('--from <snapshot>', 'start from this snapshot (an id, a branch LINEAGE@ROLLOUT as the run summary names it, or a lineage for its head) instead of the lineage head')
    .option('--memory-from <lineage>', "fresh copy of the workspace whose memory layout is replaced by this lineage's (CI)")
    .option('-m, --model <model>', 'model of the run (agent.model)')
    .option('--max-turns <n>', 'model turns before the run stops (agent.maxTurns)')
    .option('--network <mode>', 'sandbox network mode: none (default), bridge (a network of its own, NAT to the outside), host (shares this host\'s network: the agent reaches its localhost services; warned)')
    .option('--tools <style>', 'tool definitions: anthropic (typed tools), portable (JSON-schema tools for other endpoints), auto (default: by endpoint)')
    .option('--no-memory-read', 'do not put memory into the prompt')
    .option('--no-memory-generate', 'do not extract or consolidate memory after the run (the rollout stays pending)')
    .option('--no-live-update', "do not give the agent the memory tool")
    .option('--keep-sandbox', 'leave the container running afterwards, for inspection')
    .option('--apply', "when the agent completed, write its changes into the host directory (as `mnemara apply`; refused if the directory changed meanwhile)")
    .option('--json', 'print one JSON result instead of live lines and a summary')
    .option('--timings', 'after the summary, where the time went: every step and its parts, in ms (in --json: timings.parts)');
  addConfigOptions(cmd).action(async (opts: RunCliOptions) => {
    const json = Boolean(opts.json);
    const task = await readTask(opts);
    const { config } = loadCliConfig(opts, configFlags(cmd, opts));
    // Before the sandbox starts: a name that resolves to nothing is the user's input (exit 2).
    const from = opts.from === undefined ? undefined : await snapshotRef(await memoryStore(config), opts.from);
    // `--from LINEAGE[@…]` names the lineage the run continues, unless --lineage names another.
    const lineage = opts.lineage ?? (opts.from === undefined ? undefined : lineageOfRef(opts.from));
    const controller = new AbortController();
    const stopCommand = new AbortController();
    const hurry = new AbortController();
    let agentDone = false;
    let interrupts = 0;
    // SIGTERM (`docker stop`, a CI timeout, systemd) is an interrupt too: removing the container on it lost the
    // run's code as a second Ctrl-C once did.
    const onSignal = (signal: NodeJS.Signals): void => {
      interrupts += 1;
      if (interrupts > 1) {
        // Quitting now must not lose the run: its sandbox (the work not yet in a snapshot) stays for `recover`.
        const kept = keepAllSandboxes();
        if (kept > 0) writeErr('\nquitting now: the sandbox is kept; `mnemara recover` saves its work\n');
        process.exit(signal === 'SIGTERM' ? 143 : 130);
      }
      // The command running now is stopped, as a terminal's Ctrl-C stops it (two trials waited up to the 120 s
      // exec timeout). SIGTERM's sender (a CI cancel, `docker stop`, Kubernetes) sends SIGKILL after a grace of
      // 10–30 s: the run is saved at once, its memory left pending for the next session.
      const term = signal === 'SIGTERM';
      const again = term ? 'a second SIGTERM quits at once' : 'Ctrl-C again to quit now';
      // After the agent step no command runs: the run is being saved anyway (thirteenth trial F11's second half).
      const what = agentDone ? 'the agent has finished; saving the run' : 'stopping the command running now, then saving the run';
      writeErr(`\ninterrupting (${signal}): ${what}${term ? ' (memory is left for the next session)' : ''} (${again}, keeping the sandbox for \`mnemara recover\`)\n`);
      if (term) hurry.abort();
      stopCommand.abort();
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const printProgress = stepPrinter(!json);
    const printTool = toolPrinter(!json);
    const waiting = waitingPrinter(!json, config.anthropic.requestTimeoutMs);
    let transcriptPath: string | undefined;
    try {
      const result = await runSession(
        {
          workspace: opts.workspace,
          task,
          config,
          signal: controller.signal,
          stopSignal: stopCommand.signal,
          hurrySignal: hurry.signal,
          ...(lineage !== undefined ? { lineage } : {}),
          ...(from !== undefined ? { from } : {}),
          ...(opts.memoryFrom !== undefined ? { memoryFrom: opts.memoryFrom } : {}),
          ...(opts.keepSandbox ? { keepSandbox: true } : {}),
        },
        {
          onEvent: (event) => {
            waiting.onEvent(event);
            if (event.type === 'progress' && event.progress.step === 'agent' && event.progress.phase === 'end') agentDone = true;
            if (event.type === 'progress') printProgress(event.progress);
            else if (event.type === 'started' && !json) {
              // The transcript is named once the agent starts: a run that fails before has none to point to.
              const from = event.branch !== undefined ? `git remote and branch ${event.branch}` : event.lineageSource;
              const implied = opts.lineage === undefined && lineage !== undefined ? ` (from --from ${opts.from}; name another with --lineage NAME)` : '';
              const how = event.lineageSource === 'named' ? implied : ` (default, from the ${from}; name one with --lineage NAME)`;
              writeErr(`rollout ${event.rolloutId} on lineage ${event.lineage}${how}\n`);
              transcriptPath = event.transcriptPath;
            } else if (event.type === 'notice') {
              if (!json) writeErr(`${event.notice.kind === 'host-memory-replaced' ? 'note' : 'warning'}: ${event.notice.message}\n  ${event.notice.hint}\n`);
            } else printTool(event);
            // Named when the model's first reply begins, the moment the file is first written: a run that ends
            // before has none (trial 24), and the summary then says nothing was saved.
            if (!json && event.type === 'model' && event.phase === 'answering' && transcriptPath) {
              writeErr(`  transcript ${transcriptPath}\n`);
              transcriptPath = undefined;
            }
          },
        },
      );
      // --apply: the run's changes into the host directory, only when the agent completed and a snapshot exists.
      const target = runCodeSnapshot(result);
      let applied: ApplyResult | undefined;
      let applyError: unknown;
      if (opts.apply && result.outcome === 'completed' && target) {
        applied = await applySnapshot(config, target, resolve(opts.workspace), {}).catch((err: unknown) => {
          applyError = err;
          return undefined;
        });
      }
      emit(json, applied ? { ...result, applied: applyJson(applied) } : result, () => formatSummary(result, { dir: opts.workspace, storeFlags: storeFlags(opts), ...(applied ? { applied } : {}) }) + (opts.timings ? formatTimings(result) : ''));
      process.exitCode = result.outcome === 'completed' ? EXIT.ok : EXIT.failed;
      // The run is saved either way; a refused apply is reported after its summary, with its own exit code.
      // (With --json too it goes to stderr as text: stdout stays one document.)
      if (applyError !== undefined) process.exitCode = reportError(applyError, false);
    } finally {
      waiting.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
