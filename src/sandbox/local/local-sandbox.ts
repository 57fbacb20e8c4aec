import { mkdtemp, mkdir, readFile, readdir, rename, rm, stat, lstat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { directoryTar } from '../../snapshot/dir-tar.js';
import { extractTar } from '../../snapshot/extract.js';
import { DEFAULT_RESTORE_LIMITS } from '../../snapshot/limits.js';
import { logger } from '../../config/logger.js';
import type { ExecOptions, ExecResult, Sandbox } from '../types.js';
import { SandboxError } from '../errors.js';
import { resolveSandboxPath } from '../paths.js';
import { validateExec } from '../exec-options.js';
import { resolveSandboxConfig } from '../options.js';
import { localExec } from './exec.js';
import type { ExecDefaults } from '../exec-result.js';
import { track, untrack } from '../registry.js';
import { rmSync } from 'node:fs';

const log = logger('sandbox');

/** Options of `LocalSandbox.create`. */
export interface LocalSandboxOptions extends Partial<ExecDefaults> {
  sessionId: string;
  /** Parent of the temp dir; default the OS temp dir. */
  parentDir?: string;
}

/**
 * A sandbox that is only a temporary directory on the host: commands run as the current user with full access
 * to the machine and the network. For development on machines without Docker. It isolates nothing, and logs a
 * warning saying so each time one starts. Commands get only basic host variables (PATH, HOME, locale …), so the
 * host's API keys are not one `env` away from the model.
 */
export class LocalSandbox implements Sandbox {
  readonly kind = 'local' as const;
  readonly id: string;
  private closed = false;
  /** Process groups of commands run so far: background children that outlived their command die on close. */
  private readonly groups = new Set<number>();

  private constructor(
    readonly workspaceDir: string,
    private readonly defaults: ExecDefaults,
  ) {
    this.id = basename(dirname(workspaceDir));
  }

  /** Makes the temp dir (`<parentDir>/mnemara-<session>-XXXXXX/workspace`) and registers it for cleanup on exit. */
  static async create(options: LocalSandboxOptions): Promise<LocalSandbox> {
    const config = resolveSandboxConfig({ execTimeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes });
    const safe = options.sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);
    const root = await mkdtemp(join(options.parentDir ?? tmpdir(), `mnemara-${safe}-`));
    const workspace = join(root, 'workspace');
    await mkdir(workspace);
    const sandbox = new LocalSandbox(workspace, { timeoutMs: config.execTimeoutMs, maxOutputBytes: config.maxOutputBytes });
    log.warn(
      { workspace },
      'LocalSandbox isolates nothing: commands run on this host as the current user, with its files and network',
    );
    track(sandbox);
    return sandbox;
  }

  async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    validateExec(command, options);
    const cwd = options.cwd === undefined ? this.workspaceDir : this.resolve(options.cwd);
    const isDir = await stat(cwd).then((s) => s.isDirectory(), () => false);
    if (!isDir) {
      throw new SandboxError('ENOENT', `working directory ${cwd} does not exist`, {
        hint: 'create it first (mkdir -p) or pass an existing cwd',
      });
    }
    return localExec(
      command,
      { ...options, cwd },
      { ...this.defaults, cwd, env: { MNEMARA_WORKSPACE: this.workspaceDir }, groups: this.groups },
    );
  }

  async readFile(path: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    this.assertOpen();
    const abs = this.resolve(path);
    const info = await stat(abs).catch((err: NodeJS.ErrnoException) => {
      throw fileError(err, abs);
    });
    if (info.isDirectory()) throw new SandboxError('EISDIR', `${abs} is a directory`);
    // `/dev/zero` has size 0 and never ends (trial 26 N16): only regular files are read.
    if (!info.isFile()) throw new SandboxError('NOT_REGULAR', `${abs} is not a regular file (a device, FIFO or socket): it is not read`);
    if (options.maxBytes !== undefined && info.size > options.maxBytes) {
      throw new SandboxError('TOO_LARGE', `${abs} is ${info.size} bytes, over the limit of ${options.maxBytes}`);
    }
    return readFile(abs).catch((err: NodeJS.ErrnoException) => {
      throw fileError(err, abs);
    });
  }

  async writeFile(path: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    this.assertOpen();
    const abs = this.resolve(path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, data, { mode: options.mode ?? 0o644 }).catch((err: NodeJS.ErrnoException) => {
      throw fileError(err, abs);
    });
    if (options.mode !== undefined) await chmod(abs, options.mode);
  }

  async putArchive(stream: Readable, dir: string): Promise<void> {
    this.assertOpen();
    const abs = this.resolve(dir);
    await mkdir(abs, { recursive: true });
    // The snapshot module's guarded extraction (no escapes, never through a link, names byte for byte) into a
    // staging directory beside the target, then moved over what is there (as `tar -x` overwrites).
    const staging = await mkdtemp(join(dirname(abs), '.put-'));
    try {
      await extractTar(stream, staging, { limits: DEFAULT_RESTORE_LIMITS });
      await moveOver(Buffer.from(staging), Buffer.from(abs));
    } catch (err) {
      throw new SandboxError('SANDBOX_FAILED', `could not extract the archive into ${abs}: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async getArchive(dir: string): Promise<Readable> {
    this.assertOpen();
    const abs = this.resolve(dir);
    const info = await stat(abs).catch((err: NodeJS.ErrnoException) => {
      throw fileError(err, abs);
    });
    if (!info.isDirectory()) throw new SandboxError('INVALID_INPUT', `${abs} is not a directory`);
    // Same shape as Docker's archive of `dir/.`: `./` first, then `./name` entries, FIFOs and devices as
    // header-only entries (the snapshot lists them as skipped), nothing ever opened but files and directories.
    return directoryTar(abs, {
      ignore: () => false,
      specials: 'header',
      onSkip: (skip) => log.warn(skip, 'left out of the workspace archive'),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    untrack(this);
    this.killLeftovers();
    await rm(dirname(this.workspaceDir), { recursive: true, force: true });
  }

  /** At process exit nothing async runs: remove the temp dir synchronously. */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    this.killLeftovers();
    rmSync(dirname(this.workspaceDir), { recursive: true, force: true });
  }

  private killLeftovers(): void {
    for (const pgid of this.groups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.groups.clear();
  }

  private resolve(path: string): string {
    return resolveSandboxPath(this.workspaceDir, path);
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
  }
}

/**
 * Moves everything in `from` into `to`, replacing what is there; directories present in both are merged.
 * Paths are bytes, so names that are not UTF-8 move as they are.
 */
async function moveOver(from: Buffer, to: Buffer): Promise<void> {
  for (const name of await readdir(from, { encoding: 'buffer' })) {
    const src = Buffer.concat([from, Buffer.from('/'), name]);
    const dest = Buffer.concat([to, Buffer.from('/'), name]);
    const [a, b] = await Promise.all([lstat(src), lstat(dest).catch(() => null)]);
    if (a.isDirectory() && b?.isDirectory()) {
      await moveOver(src, dest);
      continue;
    }
    if (b) await rm(dest, { recursive: true, force: true });
    await rename(src, dest);
  }
}

function fileError(err: NodeJS.ErrnoException, path: string): Error {
  if (err.code === 'ENOENT') return new SandboxError('ENOENT', `${path} does not exist`, { cause: err });
  if (err.code === 'EISDIR') return new SandboxError('EISDIR', `${path} is a directory`, { cause: err });
  return new SandboxError('SANDBOX_FAILED', `${path}: ${err.message}`, { cause: err });
}
