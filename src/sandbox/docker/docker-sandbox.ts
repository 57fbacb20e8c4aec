import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import type { BytesExecResult, ExecOptions, ExecResult, Sandbox } from '../types.js';
import { SandboxError } from '../errors.js';
import { resolveSandboxPath } from '../paths.js';
import { validateExec } from '../exec-options.js';
import { resolveSandboxConfig } from '../options.js';
import { track, untrack } from '../registry.js';
import { sandboxImageTag, sandboxUserIds } from '../image-tag.js';
import { missingImageError } from './missing-image.js';
import { assertEngine, dockerClient, statusOf } from './client.js';
import { removeContainer } from './remove.js';
import { WORKSPACE_DIR, containerCreateOptions } from './container-spec.js';
import { rawExec } from './exec.js';
import { refusedAsStopped, stoppedState } from './stopped.js';
import { stopLeftoverProcesses } from './leftovers.js';
import { oomKillCount } from './oom.js';
import { getArchive, putArchive } from './archive.js';
import { readFileIn, writeFileIn } from './files.js';
import { copyFrozenImage, createWorkspaceDisk, releaseWorkspaceDisk, releaseWorkspaceDiskSync, unlinkWorkspaceImage, type WorkspaceDisk } from './workspace-disk.js';

const log = logger('sandbox');

/** Said after a failed command's own ENOSPC message, so that the model (and a person) knows which limit it hit. */
function quotaNote(bytes: number): string {
  return `\n[mnemara: the disk is full. /workspace has a quota of ${bytes} bytes (sandbox.maxWorkspaceBytes); /tmp and the home directory are tmpfs of sandbox.tmpBytes each. Delete files or ask for a larger quota.]\n`;
}

const cpusOfEngine = new WeakMap<Docker, number>();

/** The engine host's CPU count (Docker refuses a larger NanoCpus); asked once per client. */
async function engineCpus(docker: Docker): Promise<number> {
  const known = cpusOfEngine.get(docker);
  if (known !== undefined) return known;
  const info = await docker.info().catch(async (err: unknown) => {
    await assertEngine(docker);
    throw err;
  });
  const cpus = typeof info.NCPU === 'number' && info.NCPU > 0 ? info.NCPU : Infinity;
  cpusOfEngine.set(docker, cpus);
  return cpus;
}

/** Options of `DockerSandbox.create`; defaults from `SandboxConfigSchema` (src/config/sandbox.ts). Sizes in bytes. */
export interface DockerSandboxOptions {
  sessionId: string;
  /** Default: `await sandboxImageTag()`, the image scripts/setup.sh builds. */
  image?: string;
  /** Docker network mode; default `none`. */
  network?: string;
  memoryBytes?: number;
  cpus?: number;
  pidsLimit?: number;
  /** Size of the /tmp and home tmpfs mounts, each. */
  tmpBytes?: number;
  /** Quota on /workspace, bytes; 0: none. Default 20 GiB. */
  maxWorkspaceBytes?: number;
  /** Default exec timeout, ms. */
  execTimeoutMs?: number;
  /** Default exec output cap per stream. */
  maxOutputBytes?: number;
  /** Engine address (`tcp://…`, `ssh://…`); default `DOCKER_HOST`, else the local socket. Ignored when `docker` is given. */
  dockerHost?: string;
  docker?: Docker;
  /**
   * A cached workspace image (`workspace-cache.ts`) to start /workspace from: the sandbox gets a private sparse
   * copy of it instead of an empty filesystem when it is exactly the quota's size (`workspaceFromImage` says
   * whether it did). Needs the quota disk; ignored without one.
   */
  workspaceImageFrom?: string;
  /** Keep the workspace image file named while the sandbox runs, so `copyWorkspaceImage` can copy it. */
  keepWorkspaceImage?: boolean;
  /** The mnemara home it belongs to (`config.home`), put in its labels; default `mnemaraHome()`. */
  home?: string;
}

/**
 * A hardened container (see `containerCreateOptions`) running mnemara-reaper (sandbox-image/bin/) under tini, with an anonymous
 * volume at /workspace. Commands run through `docker exec` as the non-root sandbox user. `close()` removes the
 * container and its volume; until then it is registered for removal at process exit and on SIGINT/SIGTERM.
 */
export class DockerSandbox implements Sandbox {
  readonly kind = 'docker' as const;
  readonly workspaceDir = WORKSPACE_DIR;
  private closed = false;
  private oomKills: number | null = 0;
  /** The volume's host directory while `copyWorkspaceImage` holds it frozen (thawed by `closeSync` on exit). */
  private frozenAt: string | null = null;

  private constructor(
    readonly id: string,
    readonly name: string,
    private readonly container: Docker.Container,
    private readonly docker: Docker,
    private readonly defaults: { timeoutMs: number; maxOutputBytes: number },
    /** The loop-mounted filesystem of /workspace (its size is the quota); null when none could be set. */
    private readonly disk: WorkspaceDisk | null,
    private readonly keepImage = false,
  ) {}

  /** Whether /workspace started as a private copy of `workspaceImageFrom` (else: empty). */
  get workspaceFromImage(): boolean {
    return this.disk?.copied ?? false;
  }

  /**
   * Copies /workspace's filesystem image to `dest` (sparse), frozen for the copy so that it is one instant of
   * it. Throws `SandboxError('SANDBOX_FAILED')` when the sandbox has no image kept (`keepWorkspaceImage`), the
   * volume's host directory is unknown, or fsfreeze or cp failed.
   */
  async copyWorkspaceImage(dest: string): Promise<void> {
    this.assertOpen();
    if (!this.disk || !this.keepImage) throw new SandboxError('SANDBOX_FAILED', 'the sandbox has no workspace image to copy');
    const info = await this.container.inspect();
    const mountpoint = info.Mounts.find((m) => m.Destination === WORKSPACE_DIR)?.Source;
    if (!mountpoint) throw new SandboxError('SANDBOX_FAILED', 'the workspace volume has no host directory');
    this.frozenAt = mountpoint;
    await copyFrozenImage(this.disk, mountpoint, dest)
      .catch((err: unknown) => {
        throw new SandboxError('SANDBOX_FAILED', `could not copy the workspace image: ${(err as Error).message.split('\n')[0]}`, { cause: err });
      })
      .finally(() => {
        this.frozenAt = null;
      });
  }

  /** The /workspace quota in bytes; 0 when none could be set. */
  get workspaceQuotaBytes(): number {
    return this.disk?.bytes ?? 0;
  }

  /**
   * Creates and starts the container. Throws `SandboxError`: `INVALID_INPUT` (an option out of range),
   * `DOCKER_UNAVAILABLE` (no engine), `IMAGE_MISSING` (`missingImageError`: run `npm run setup`, or pull/build a `sandbox.image` of another name), `SANDBOX_FAILED` (the engine
   * refused, with its message).
   */
  static async create(options: DockerSandboxOptions): Promise<DockerSandbox> {
    const docker = options.docker ?? dockerClient(options.dockerHost);
    const config = resolveSandboxConfig(options);
    const image = config.image ?? (await sandboxImageTag());
    const hostCpus = await engineCpus(docker);
    const { uid, gid } = sandboxUserIds();
    const safe = options.sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40) || 'session';
    const name = `mnemara-${safe}-${randomBytes(3).toString('hex')}`;
    const disk = config.maxWorkspaceBytes > 0 ? await createWorkspaceDisk(name, config.maxWorkspaceBytes, uid, gid, options.workspaceImageFrom, options.home) : null;
    const createOptions = containerCreateOptions({
      image,
      sessionId: options.sessionId,
      name,
      network: config.network,
      memoryBytes: config.memoryBytes,
      // Docker refuses more CPUs than the engine's host has.
      cpus: Math.min(config.cpus, hostCpus),
      pidsLimit: config.pidsLimit,
      tmpBytes: config.tmpBytes,
      workspaceDevice: disk?.device,
      uid,
      gid,
      ...(options.home ? { home: options.home } : {}),
    });
    let container: Docker.Container;
    try {
      container = await docker.createContainer(createOptions);
    } catch (err) {
      if (disk) await releaseWorkspaceDisk(disk);
      if (statusOf(err) === 404) {
        throw missingImageError(image, err);
      }
      throw new SandboxError('SANDBOX_FAILED', `could not create the sandbox container: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const sandbox = new DockerSandbox(container.id, name, container, docker, {
      timeoutMs: config.execTimeoutMs,
      maxOutputBytes: config.maxOutputBytes,
    }, disk, options.keepWorkspaceImage === true);
    track(sandbox);
    try {
      await container.start();
    } catch (err) {
      await sandbox.close();
      throw startFailure(err, config.network);
    }
    // Mounted now: the image's blocks stay only while the loop device does (detached by close()).
    if (disk && !options.keepWorkspaceImage) await unlinkWorkspaceImage(disk);
    log.info({ container: name, image, session: options.sessionId, quotaBytes: disk?.bytes ?? 0 }, 'sandbox started');
    return sandbox;
  }

  /**
   * A sandbox over an existing mnemara container that a session whose process is gone left behind, to rescue its
   * /workspace (`src/session/stranded.ts`): a stopped container is started first. exec, archive reads and
   * `close()` work as on a sandbox this process created; it is not removed at this process's exit, and its loop
   * device, if any, is left to `detachOrphanDisks`. Throws what the engine throws (404: the container is gone).
   */
  static async attach(containerId: string, options: { docker?: Docker; execTimeoutMs?: number; maxOutputBytes?: number } = {}): Promise<DockerSandbox> {
    const docker = options.docker ?? dockerClient();
    const container = docker.getContainer(containerId);
    const info = await container.inspect();
    if (!info.State.Running) await container.start();
    const name = info.Name.replace(/^\//, '');
    return new DockerSandbox(info.Id, name, container, docker, { timeoutMs: options.execTimeoutMs ?? 120_000, maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024 }, null);
  }

  async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    validateExec(command, options);
    const argv = typeof command === 'string' ? ['bash', '-c', command] : command;
    const r = await this.execAlive({
      argv,
      cwd: options.cwd === undefined ? undefined : this.resolve(options.cwd),
      env: options.env,
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? this.defaults.timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? this.defaults.maxOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // runc reports a missing working directory as exit 126 with its own message on stdout.
    if (r.exitCode === 126 && options.cwd !== undefined && r.stdout.text().includes('chdir to cwd')) {
      throw new SandboxError('ENOENT', `working directory ${this.resolve(options.cwd)} does not exist in the sandbox`, {
        hint: 'create it first (mkdir -p) or pass an existing cwd',
      });
    }
    const oomKilled = r.exitCode === 137 && !r.timedOut ? await this.sawNewOomKill() : false;
    const stderr = r.stderr.text();
    return {
      exitCode: r.exitCode,
      stdout: r.stdout.text(),
      stderr: r.exitCode !== 0 && this.workspaceQuotaBytes > 0 && stderr.includes('No space left on device') ? stderr + quotaNote(this.workspaceQuotaBytes) : stderr,
      durationMs: r.durationMs,
      timedOut: r.timedOut,
      ...(r.interrupted ? { interrupted: true } : {}),
      truncated: r.stdout.truncated || r.stderr.truncated,
      oomKilled,
    };
  }

  async execBytes(argv: string[], options: { stdin?: Buffer; maxOutputBytes: number; cwd?: string; timeoutMs?: number }): Promise<BytesExecResult> {
    this.assertOpen();
    const r = await this.execAlive({
      argv,
      cwd: options.cwd === undefined ? undefined : this.resolve(options.cwd),
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      timeoutMs: options.timeoutMs ?? this.defaults.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
    });
    return { exitCode: r.exitCode, stdout: r.stdout.bytes(), stderr: r.stderr.text(), truncated: r.stdout.truncated, timedOut: r.timedOut };
  }

  /**
   * `rawExec`, and when the engine refuses it because the container stopped (the agent killed every process in it,
   * its init too: `kill -9 -1`, `pkill -9 -u agent`), the container is started again once and the exec retried:
   * /workspace is its volume (the same loop device), so the work is all there, and the run goes on instead of
   * failing as mnemara's error. The refusal comes in two shapes: the engine throws (it already knew the container
   * had stopped), or, when the exec was created while the container was still going down, the runtime answers
   * exit 126 with its own one-line message as the command's output (`RUNTIME_REFUSAL`); the engine may still call
   * the container running then, so its stop is awaited (up to 10 s) before the start. A container that is gone,
   * still running, or will not start, and a command fed from a stream, keep the refusal (thrown, or the 126
   * result returned as it came).
   */
  private async execAlive(req: Parameters<typeof rawExec>[2]): Promise<Awaited<ReturnType<typeof rawExec>>> {
    let refusal: unknown;
    try {
      const r = await rawExec(this.container, this.docker, req);
      if (!refusedAsStopped(r)) return r;
      refusal = r;
    } catch (err) {
      refusal = err;
    }
    // Only the runtime's refusal is worth waiting for: the engine throws once the stop has been recorded.
    const state = await stoppedState(this.container, refusal instanceof Error ? 0 : 10_000);
    const giveUp = () => {
      if (refusal instanceof Error) throw refusal;
      return refusal as Awaited<ReturnType<typeof rawExec>>;
    };
    if (!state || state.Running || this.closed) return giveUp();
    const started = await this.container.start().then(
      () => true,
      () => false,
    );
    // Said only once it is true: a container removed under the run (`docker rm -f`) also looks stopped for a moment,
    // and "started it again: /workspace is as it was" came just before "no such container" (twelfth trial F25).
    if (started) log.warn({ container: this.name, exitCode: state.ExitCode }, 'the sandbox container had stopped (every process in it was killed); started it again: /workspace is as it was');
    // A stdin stream cannot be replayed: the container is up again for the next command, this one keeps its refusal.
    const replayable = req.stdin === undefined || typeof req.stdin === 'string' || Buffer.isBuffer(req.stdin);
    if (!started || !replayable) return giveUp();
    return rawExec(this.container, this.docker, req);
  }

  /** See `Sandbox.stopLeftoverProcesses` and `leftovers.ts`. */
  async stopLeftoverProcesses(): Promise<number | null> {
    this.assertOpen();
    return stopLeftoverProcesses(this, this.container);
  }

  async readFile(path: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    this.assertOpen();
    return readFileIn(this.container, this.docker, this.resolve(path), options.maxBytes);
  }

  async writeFile(path: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    this.assertOpen();
    return writeFileIn(this.container, this.docker, this.resolve(path), data, options.mode);
  }

  async putArchive(tar: Readable, dir: string): Promise<void> {
    this.assertOpen();
    return putArchive(this.container, this.docker, tar, this.resolve(dir));
  }

  async getArchive(dir: string): Promise<Readable> {
    this.assertOpen();
    return getArchive(this.container, this.resolve(dir));
  }

  /**
   * Whether the container still exists on its engine: `false` only on a 404 (someone else removed it, e.g.
   * `mnemara sandbox prune --force`); `true` when the engine cannot be asked (nothing is claimed lost then).
   */
  async exists(): Promise<boolean> {
    return this.container.inspect().then(
      () => true,
      (err: unknown) => statusOf(err) !== 404,
    );
  }

  /** Removes the container and its volume (force: a running container is killed). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      // Idempotent: gone already (404) or being removed by someone else (409 "already in progress") is success.
      if (await removeContainer(this.container)) log.info({ container: this.name }, 'sandbox removed');
      if (this.disk) await releaseWorkspaceDisk(this.disk);
    } catch (err) {
      this.closed = false;
      throw new SandboxError('SANDBOX_FAILED', `could not remove sandbox ${this.name}: ${(err as Error).message}`, {
        hint: 'run `mnemara sandbox prune` to remove leftovers',
        cause: err,
      });
    } finally {
      if (this.closed) untrack(this);
    }
  }

  /** At process exit nothing async runs: remove the container with the docker CLI, synchronously. */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    // Interrupted while the workspace was frozen for a copy: a frozen filesystem would hold up the removal.
    if (this.frozenAt) spawnSync('fsfreeze', ['--unfreeze', this.frozenAt], { stdio: 'ignore', timeout: 5_000 });
    spawnSync('docker', ['rm', '--force', '--volumes', this.id], { stdio: 'ignore', timeout: 15_000 });
    if (this.disk) releaseWorkspaceDiskSync(this.disk);
  }

  /** Whether the container's OOM-kill count grew since the last look (the container dying of OOM counts too). */
  private async sawNewOomKill(): Promise<boolean> {
    const count = await oomKillCount(this.container, this.docker);
    if (count === null) {
      const state = await this.container.inspect().then((i) => i.State).catch(() => undefined);
      return state?.OOMKilled === true;
    }
    const grew = this.oomKills === null || count > this.oomKills;
    this.oomKills = count;
    return grew;
  }

  private resolve(path: string): string {
    return resolveSandboxPath(WORKSPACE_DIR, path);
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.name} is closed`);
  }
}

/**
 * Why a created container did not start. A network the engine does not know (`--network bogus`, a 404 naming
 * the network) is the user's input, not the engine's failure: `INVALID_INPUT`, with the modes that exist.
 */
function startFailure(err: unknown, network: string): SandboxError {
  const message = (err as Error).message;
  if (statusOf(err) === 404 && /network .* not found/i.test(message)) {
    return new SandboxError('INVALID_INPUT', `there is no Docker network "${network}" (sandbox.network)`, {
      hint: 'Use --network none (the default: no network), bridge (the engine\'s default network), host, or a network `docker network ls` lists.',
      cause: err,
    });
  }
  return new SandboxError('SANDBOX_FAILED', `could not start the sandbox container: ${message}`, { cause: err });
}
