import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';
import type { OnProgress } from '../config/progress.js';
import type { Sandbox } from '../sandbox/types.js';
import { credentialFilesSection, credentialMessage, leaveOutCredentialFiles, type CredentialFile, type WasThere } from './credential-files.js';
import { setAside } from './left-out.js';
import { changedFilesSection, redactLayoutInSandbox } from './redact-notes.js';
import { gitMessagesSection, redactGitMessagesInSandbox } from './redact-git-messages.js';
import { leaveOutSecretFiles, secretFileMessage, tokenFilesSection, type SecretFile } from './secret-files.js';
import { findSecretKeyFiles, secretKeyFileMessage, secretKeysSection, type SecretKeyFile } from './secret-key-files.js';
import { runWorkspaceScan, type ScanSection, type SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** What step 6 did to the sandbox's workspace before reading it, and what the snapshot must list as left out. */
export interface PreparedWorkspace {
  credentialFiles: CredentialFile[];
  secretFiles: SecretFile[];
  /** Config files the run wrote with values under secret-named keys: reported, kept in the snapshot. */
  secretKeyFiles: SecretKeyFile[];
  /** Processes the agent's commands left running, stopped before the snapshot (`null`: could not be looked at). */
  leftoverProcesses: number | null;
  /** The manifest's `skipped` entries for the files left out. */
  skipped: { path: string; reason: string }[];
  /**
   * Time of each part, ms, as `SessionResult.timings.parts` names them, in the order they started:
   * `snapshot.stop-processes`, `snapshot.redact-notes` (with the one sandbox exec all the checks share,
   * `workspace-scan.ts`), `snapshot.redact-git-messages`, `snapshot.secret-keys` (it runs beside the next two, so
   * the parts may add up to more than the step), `snapshot.credential-files`, `snapshot.token-files`; each of the
   * last four is its check's own work on the scan's output (and its own exec where it had to run one).
   */
  timings: Record<string, number>;
}

/**
 * Step 6, first half: makes the workspace a stable tree that holds no secret, before any layer is written.
 * 1. Every process the agent's commands left running (`cmd &`, `nohup`, `setsid`, double forks) is killed, so
 *    nothing writes into the tree (above all `memories/`) while it is read or after its notes were redacted.
 * 2. The memory layout is redacted in place (`redact-notes.ts`): with `fromSnapshot` (the tree was restored from a
 *    snapshot), only the files changed since `runClock`; so are git's commit message files and reflogs the run
 *    changed (`redact-git-messages.ts`).
 * 3. Credential files the run created, and files it created that hold a token, are set aside on the host
 *    (`<home>/left-out/<rollout-id>/`) and listed as skipped (`credential-files.ts`, `secret-files.ts`).
 * 4. Config files the run wrote with a value under a secret-named key are reported, not left out (`secret-key-files.ts`).
 * One sandbox exec reads for all of them at once (`workspace-scan.ts`: the layout's changed files, git's message
 * files, the three greps); each check then works on its own output on the host, as it did on its own exec's. A
 * check whose input the earlier ones changed runs its own exec again after them, as before: the credential scan
 * (it reads the memory layout) when the layout redaction wrote, removed or renamed a file, the secret-key scan
 * (it reads `.git/COMMIT_EDITMSG` and `.git/logs/HEAD`) when git's notes were redacted. So is every check when the
 * shared scan gives nothing usable (it failed, timed out or was cut), and a check whose output was over its own cap.
 * `runClock` is the sandbox's clock when the agent started (`null`: unknown, then no file is looked at).
 * Progress lines name every file left out or kept and the processes stopped. Throws what the layout redaction
 * throws (a sandbox read or write that fails); the other parts never throw.
 */
export async function prepareWorkspace(
  sandbox: Sandbox,
  ctx: { home: string; rolloutId: string; layout: MemoryLayout; runClock: number | null; wasThere: WasThere; keep: boolean; fromSnapshot?: boolean; onProgress?: OnProgress },
): Promise<PreparedWorkspace> {
  const say = (message: string): void => ctx.onProgress?.({ step: 'snapshot', phase: 'progress', message });
  const timings: Record<string, number> = {};
  const timed = async <T>(part: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    timings[`snapshot.${part}`] = 0; // listed in the order the parts started
    try {
      return await work();
    } finally {
      timings[`snapshot.${part}`] = Math.round(performance.now() - t);
    }
  };
  const leftoverProcesses = sandbox.stopLeftoverProcesses ? await timed('stop-processes', () => sandbox.stopLeftoverProcesses!()) : null;
  if (leftoverProcesses) say(`stopped ${leftoverProcesses} process(es) the agent's commands left running, before the snapshot`);
  // Restored from a snapshot (whose layout was redacted when written): only what the run changed is read again.
  const since = ctx.fromSnapshot && ctx.runClock !== null ? { since: ctx.runClock } : {};
  const runClock = ctx.runClock;
  const layoutDirs = [ctx.layout.memoriesDir, ctx.layout.sessionsDir];
  const skipDirs = layoutDirs;
  const root = sandbox.workspaceDir;
  const sections: ScanSection[] = [
    ...(since.since === undefined ? [] : layoutDirs.map((dir, i) => changedFilesSection(`notes-${i}`, dir, since.since))),
    gitMessagesSection('git-messages', root, runClock),
    ...(runClock === null ? [] : [secretKeysSection('secret-keys', root, runClock, skipDirs), credentialFilesSection('credential-files', root, runClock), tokenFilesSection('token-files', root, runClock, skipDirs)]),
  ];
  const { scan, notes } = await timed('redact-notes', async () => {
    const shared = await runWorkspaceScan(sandbox, sections);
    return { scan: shared, notes: await redactLayoutInSandbox(sandbox, ctx.layout, { ...since, scanned: (dir) => shared?.get(`notes-${layoutDirs.indexOf(dir)}`) }) };
  });
  const scanned = (name: string): SectionOutput | undefined => scan?.get(name);
  const gitMessages = await timed('redact-git-messages', () => redactGitMessagesInSandbox(sandbox, ctx.runClock, scanned('git-messages')));
  if (gitMessages.length) say(`redacted a secret in git's own notes of the run's commits (the objects are kept whole): ${gitMessages.join(', ')}`);
  // What the shared scan read before these redactions is stale where they wrote: those checks read again.
  const notesWrote = notes.redacted.length + notes.refused.length + notes.renamed.length > 0;
  const leaveOut = (rel: string, savedAs?: string): Promise<string | null> => setAside(sandbox, ctx.home, ctx.rolloutId, rel, savedAs);
  // Report-only, so it runs beside the scans that set files aside; what they reported is dropped from it after.
  const keyScan: Promise<SecretKeyFile[]> =
    runClock === null
      ? Promise.resolve([])
      : timed('secret-keys', () => findSecretKeyFiles(sandbox, runClock, { skipDirs, skip: new Set(), scanned: gitMessages.length ? undefined : scanned('secret-keys') })).catch((err: unknown) => {
          // Never left to reject unawaited while the other scans run (that would end the process).
          log.warn({ err: (err as Error).message }, 'could not look for secret-named keys in the files the run wrote');
          return [];
        });
  // The credential-file scan and the token scan run at once; the token scan sets nothing aside before it knows
  // which files the credential scan took (`skip`, awaited after its grep).
  const credentialScan: Promise<CredentialFile[]> = runClock === null ? Promise.resolve([]) : timed('credential-files', () => leaveOutCredentialFiles(sandbox, runClock, ctx.wasThere, ctx.keep, leaveOut, notesWrote ? undefined : scanned('credential-files')));
  const secretFiles =
    runClock === null
      ? []
      : await timed('token-files', () =>
          leaveOutSecretFiles(sandbox, runClock, {
            wasThere: ctx.wasThere,
            keep: ctx.keep,
            leaveOut,
            skipDirs,
            scanned: scanned('token-files'),
            skip: credentialScan.then(
              (files) => new Set(files.map((f) => f.path)),
              () => new Set<string>(),
            ),
          }),
        );
  const credentialFiles = await credentialScan;
  // A file the other scans reported (left out, or kept with a token in it) is reported once, by them: a second
  // line saying its values have "no known token shape" contradicted the first.
  const reported = new Set([...credentialFiles, ...secretFiles].map((f) => f.path));
  const secretKeyFiles = (await keyScan).filter((f) => !reported.has(f.path));
  for (const f of credentialFiles) say(credentialMessage(f));
  for (const f of secretFiles) say(secretFileMessage(f));
  for (const f of secretKeyFiles) say(secretKeyFileMessage(f));
  const skipped = [
    ...credentialFiles.filter((f) => f.action === 'left-out').map((f) => ({ path: f.path, reason: `credential file (${f.kind}) written by the run` })),
    ...secretFiles.filter((f) => f.action === 'left-out').map((f) => ({ path: f.path, reason: `${f.inName ? 'its name holds' : 'holds'} a token (${f.kinds.join(', ')}), written by the run` })),
  ];
  return { credentialFiles, secretFiles, secretKeyFiles, leftoverProcesses, skipped, timings };
}
