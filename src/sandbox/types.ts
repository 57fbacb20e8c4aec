import type { Readable } from 'node:stream';

/** Options of one command run in a sandbox. */
export interface ExecOptions {
  /** Working directory inside the sandbox; default the workspace directory. */
  cwd?: string;
  /** Extra environment variables, added to the sandbox's own. */
  env?: Record<string, string>;
  /** Written to the command's stdin, which is then closed; no stdin when absent. */
  stdin?: string | Buffer;
  /** Wall-clock limit in ms; on expiry the whole process tree is killed. Default from the sandbox options. */
  timeoutMs?: number;
  /** Cap on stdout and on stderr, each, in bytes; the head and tail are kept around a marker. */
  maxOutputBytes?: number;
  /**
   * Aborting stops the command as its timeout would (the whole process tree is killed); the result then says
   * `interrupted`. For a run stopped from outside (SIGTERM: a CI cancel, `docker stop`), whose grace before
   * SIGKILL is too short to wait for the command.
   */
  signal?: AbortSignal;
}

/** What a command did. `stdout`/`stderr` are UTF-8 decoded (invalid bytes become U+FFFD). */
export interface ExecResult {
  /** The process's exit code; `null` only when it is truly unknown (never guessed as 0). 128+N for signal N. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the call, in ms. */
  durationMs: number;
  /** The timeout fired and the process tree was killed. */
  timedOut: boolean;
  /** `ExecOptions.signal` was aborted while the command ran and the process tree was killed. */
  interrupted?: boolean;
  /** stdout or stderr was over `maxOutputBytes` and its middle was dropped. */
  truncated: boolean;
  /** The sandbox's memory limit killed the process (or the container). */
  oomKilled: boolean;
}

/** What `Sandbox.execBytes` returns: exit code, stdout as bytes, stderr as text. */
export interface BytesExecResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
}

/**
 * An isolated place to run commands on a workspace (DESIGN.md, "sandbox").
 * Paths are inside the sandbox: absolute, or relative to `workspaceDir`.
 * Implementations: `DockerSandbox` (the real one) and `LocalSandbox` (no isolation).
 */
export interface Sandbox {
  readonly kind: 'docker' | 'local';
  /** Container id, or the local sandbox's directory name. */
  readonly id: string;
  /** The workspace root as commands see it: `/workspace` in Docker; a host temp dir for `LocalSandbox`. */
  readonly workspaceDir: string;
  /** Runs `command` with `bash -c` (a string) or as argv (an array). Never throws for a non-zero exit. */
  exec(command: string | string[], options?: ExecOptions): Promise<ExecResult>;
  /** Reads a file; throws `SandboxError` (code `ENOENT`, `EISDIR`, `TOO_LARGE` …) when it cannot. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Buffer>;
  /** Writes a file (parents created), owned by the sandbox user. */
  writeFile(path: string, data: string | Buffer, options?: { mode?: number }): Promise<void>;
  /** Extracts an uncompressed tar stream into `dir` (created if missing); entries end up owned by the sandbox user. */
  putArchive(tar: Readable, dir: string): Promise<void>;
  /** An uncompressed tar stream of `dir`'s contents (entry names relative to `dir`), streamed, not buffered. */
  getArchive(dir: string): Promise<Readable>;
  /**
   * Runs argv (no shell) and returns stdout as raw bytes, for output that is not text: listings of names that
   * are not UTF-8, tar streams. `stdin` is written and closed. `truncated` says stdout was over `maxOutputBytes`
   * (then `stdout` is not whole and must not be used). Optional: only the Docker sandbox has it.
   */
  execBytes?(argv: string[], options: { stdin?: Buffer; maxOutputBytes: number; cwd?: string; timeoutMs?: number }): Promise<BytesExecResult>;
  /**
   * Kills every process in the sandbox except its own (the init process and mnemara's), i.e. whatever the
   * agent's commands left running after they returned, and returns how many it killed. Called when no command
   * runs (before the workspace snapshot). Optional: the local sandbox has no process set of its own. Never throws;
   * `null` when the processes could not be looked at.
   */
  stopLeftoverProcesses?(): Promise<number | null>;
  /** Removes the sandbox (container and its volume, or the temp dir). Idempotent. */
  close(): Promise<void>;
}
