import { stat } from 'node:fs/promises';
import { freeBytes } from '../../config/free-space.js';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { mnemaraHome } from '../../config/paths.js';
import { explicitStore } from '../../config/io-errors.js';
import { checkWritable } from '../doctor-writable.js';
import type { MemoryLayout } from '../../config/memory.js';
import { findOrphans } from '../../session/orphans.js';
import { findPendingOnHeads } from '../../session/pending.js';
import { findDamagedHeads, type DamagedRef } from '../../snapshot/head-health.js';
import { DAMAGED_HEAD_HINT, SnapshotCorruptError } from '../../snapshot/errors.js';
import { openStore } from '../../snapshot/index.js';
import { ENGINE_HINT, LABEL, assertEngine, dockerClient, sandboxImageStatus, sandboxImageTag } from '../../sandbox/index.js';
import { statusOf } from '../../sandbox/docker/client.js';
import { missingImageError } from '../../sandbox/docker/missing-image.js';
import { listOrphanDisks } from '../../sandbox/docker/workspace-disk.js';
import { findGoneSandboxes, type GoneSandbox } from '../../session/stranded.js';
import { leftOutTotals } from '../../session/left-out-files.js';
import { deadWriterTemps } from '../../snapshot/temp-leftovers.js';
import { EXIT, emit, formatBytes } from '../output.js';
import { engineAddress } from '../../sandbox/docker/engine-host.js';
import { isS3Store, isS3Url, openSnapshotStore } from '../../snapshot/index.js';
import { endpointFromEnv } from '../../snapshot/store/s3-url.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

/** One finding of `mnemara doctor`. `required` checks make the exit code non-zero when they fail. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
  /** What to do, when not ok. */
  fix?: string;
}

const MIN_NODE = [20, 5] as const;
/** Below this much free space (bytes) on the Docker root or mnemara's home, doctor fails; below 4x, it warns. */
const MIN_FREE_BYTES = 2 * 1024 ** 3;

function checkNode(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    name: 'node',
    ok,
    required: true,
    detail: `Node ${process.version} (needs ${MIN_NODE.join('.')} or newer)`,
    ...(ok ? {} : { fix: 'install Node.js 20.5 or newer (https://nodejs.org)' }),
  };
}

async function checkEngine(host?: string): Promise<{ check: DoctorCheck; rootDir?: string }> {
  const where = engineAddress(host);
  try {
    const version = await assertEngine(dockerClient(host), 3_000);
    const info = await dockerClient(host).info();
    const remote = !where.startsWith('unix://') && !/^\w+:\/\/(127\.|localhost[:/]|\[::1\])/.test(where);
    return {
      check: {
        name: 'docker',
        ok: true,
        required: true,
        detail: `engine ${version} at ${where} (${remote ? 'remote' : 'this machine'}: ${info.Name ?? '?'}, ${info.OperatingSystem ?? '?'}, ${info.Driver}, cgroup v${info.CgroupVersion ?? '?'})`,
      },
      // A remote engine's root directory is on its host, not here: its free space cannot be checked from here.
      rootDir: !remote && typeof info.DockerRootDir === 'string' ? info.DockerRootDir : undefined,
    };
  } catch (err) {
    return { check: { name: 'docker', ok: false, required: true, detail: `${where}: ${(err as Error).message}`, fix: ENGINE_HINT } };
  }
}

/**
 * The image sessions will start from: `configured` (`sandbox.image`) when set and not the tag this checkout builds,
 * else that tag. A configured image is what `run` uses, so checking only mnemara's own tag said "ok"
 * while every session failed with IMAGE_MISSING.
 */
async function checkImage(engineOk: boolean, host?: string, configured?: string): Promise<DoctorCheck> {
  if (!engineOk) {
    return { name: 'image', ok: false, required: true, detail: 'not checked: no engine', fix: 'start the engine first (see above)' };
  }
  if (configured && configured !== (await sandboxImageTag())) return checkConfiguredImage(configured, host);
  const s = await sandboxImageStatus(dockerClient(host));
  if (s.present) {
    const size = s.sizeBytes === undefined ? '' : `, ${(s.sizeBytes / 1024 ** 2).toFixed(0)} MiB`;
    return { name: 'image', ok: true, required: true, detail: `${s.tag} present and current (built ${s.created}${size})` };
  }
  const stale = s.staleTags.length ? `; only older builds exist (${s.staleTags.join(', ')})` : '';
  return {
    name: 'image',
    ok: false,
    required: true,
    detail: `${s.tag} is not built${stale}`,
    fix: 'run `npm run setup` (scripts/setup.sh), which builds it from Dockerfile.sandbox',
  };
}

/** A `sandbox.image` of another name: present on the engine or not, with the hint a session would give. */
async function checkConfiguredImage(image: string, host?: string): Promise<DoctorCheck> {
  try {
    const info = await dockerClient(host).getImage(image).inspect();
    const size = typeof info.Size === 'number' ? `, ${(info.Size / 1024 ** 2).toFixed(0)} MiB` : '';
    return { name: 'image', ok: true, required: true, detail: `${image} (sandbox.image) present (built ${info.Created}${size})` };
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    const missing = missingImageError(image, err);
    return { name: 'image', ok: false, required: true, detail: missing.message, fix: missing.hint ?? 'pull or build it' };
  }
}

/** The device of `path`, or of its nearest existing ancestor; null when none can be read. */
async function deviceOf(path: string): Promise<number | null> {
  for (let where = path; ; where = dirname(where)) {
    const s = await stat(where).catch(() => null);
    if (s) return s.dev;
    if (dirname(where) === where) return null;
  }
}

/** Where each disk doctor checks is set, for a filesystem too small to ever hold `MIN_FREE_BYTES`. */
const MOVE_HINTS: Record<string, string> = {
  'mnemara home': 'set MNEMARA_HOME to a directory there',
  store: 'give `--store` (or snapshot.store) a directory there',
  docker: "move Docker's data-root there (/etc/docker/daemon.json) and restart dockerd",
};

async function checkDisk(path: string, label: string): Promise<DoctorCheck> {
  const { free, size, where } = await freeBytes(path);
  const ok = free >= MIN_FREE_BYTES;
  const low = free < 4 * MIN_FREE_BYTES;
  const need = formatBytes(MIN_FREE_BYTES);
  // Freeing space cannot help on a filesystem smaller than what is needed free (a small tmpfs, a quota'd volume).
  const fix = size < MIN_FREE_BYTES
    ? `this filesystem holds only ${formatBytes(size)} in all, less than the ${need} mnemara needs free: use one with at least ${need} free (${MOVE_HINTS[label] ?? 'move it'})`
    : `free at least ${need} there (docker image prune, mnemara snapshot gc --grace 0; \`mnemara recover\` first saves the work of killed sessions' sandboxes, then \`mnemara sandbox prune\` removes the leftover workspace images in <home>/sandbox-disks)`;
  return {
    name: `disk (${label})`,
    ok,
    required: true,
    detail: `${formatBytes(free)} free at ${where}${ok && low ? ' (low)' : ''}`,
    ...(ok ? {} : { fix }),
  };
}

function checkModelAccess(): DoctorCheck {
  const key = Boolean(process.env.ANTHROPIC_API_KEY);
  const base = process.env.ANTHROPIC_BASE_URL;
  const ok = key || Boolean(base);
  const detail = key
    ? `ANTHROPIC_API_KEY is set${base ? `; ANTHROPIC_BASE_URL=${base}` : ''}`
    : base
      ? `ANTHROPIC_BASE_URL=${base} (no ANTHROPIC_API_KEY)`
      : 'neither ANTHROPIC_API_KEY nor ANTHROPIC_BASE_URL is set';
  return {
    name: 'model',
    ok,
    required: false,
    detail,
    ...(ok
      ? {}
      : { fix: 'export ANTHROPIC_API_KEY=… for real runs; the offline demo and the deterministic memory pipeline need neither' }),
  };
}

/**
 * An S3 snapshot store (`--store s3://…` or `snapshot.store`): probes the server's conditional writes again
 * (refreshing the cached result) and says what it found; a store that cannot move heads by compare-and-swap fails.
 */
async function checkStore(store: string, home: string): Promise<DoctorCheck> {
  try {
    const s = await openSnapshotStore(store, {}, { home });
    if (!isS3Store(s)) return { name: 'store', ok: true, required: true, detail: `directory ${s.root}` };
    const { casSupported, describeQuirks } = await import('../../snapshot/store/s3-probe.js');
    const q = await s.quirks({ fresh: true });
    const ok = casSupported(q);
    return {
      name: 'store',
      ok,
      required: true,
      detail: `${s.root} at ${endpointFromEnv() ?? 'AWS'}: ${describeQuirks(q)}`,
      ...(ok ? {} : { fix: 'use a server that honours If-None-Match and If-Match on PutObject, or a directory store' }),
    };
  } catch (err) {
    return { name: 'store', ok: false, required: true, detail: (err as Error).message, fix: (err as { hint?: string }).hint ?? 'check the store URL and credentials' };
  }
}

/**
 * Runs every check; none throws (a failing probe becomes a failed check). `dockerHost` and `store` come from the
 * configuration (`sandbox.dockerHost`, `snapshot.store`); the store is checked only when it is an S3 store.
 */
export async function runDoctorChecks(options: { dockerHost?: string; image?: string; store?: string; home?: string; layout?: MemoryLayout; leftOutDays?: number } = {}): Promise<DoctorCheck[]> {
  const node = checkNode();
  const { check: engine, rootDir } = await checkEngine(options.dockerHost);
  const image = await checkImage(engine.ok, options.dockerHost, options.image).catch(
    (err: unknown): DoctorCheck => ({ name: 'image', ok: false, required: true, detail: (err as Error).message, fix: 'run `npm run setup`' }),
  );
  // Orphans and sandboxes are this home's only (`--home`/MNEMARA_HOME): other homes on the engine are theirs.
  const home = options.home ?? mnemaraHome();
  const disks = [await checkDisk(home, 'mnemara home')];
  if (rootDir) disks.push(await checkDisk(rootDir, 'docker'));
  const store = options.store && isS3Url(options.store) ? [await checkStore(options.store, home)] : [];
  const local = options.store && !isS3Url(options.store) ? options.store : join(home, 'store');
  // A store on a filesystem of its own fills on its own (trial 25: a full `--store` was "ready").
  if (local !== join(home, 'store') && (await deviceOf(local)) !== (await deviceOf(home))) disks.push(await checkDisk(local, 'store'));
  const checks = [node, engine, image, ...disks, checkWritable(home, local), ...store, checkModelAccess(), await checkOrphans(home, local), await checkLeftOut(home, options.leftOutDays ?? 7), ...(await checkHeadsAndPending(local, options.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' })), ...(isS3Url(options.store ?? '') ? [] : [await checkStoreTemp(local)]), ...(engine.ok ? [await checkGoneSandboxes(home, local)] : [])];
  // A store other than the home's: every recover a fix names must go to it (trial 24: pasted as printed, a plain
  // `mnemara recover` looked in the home's store and refused the rollouts).
  const flag = explicitStore(home, options.store).store;
  return flag ? checks.map((c) => (c.fix ? { ...c, fix: c.fix.replaceAll('`mnemara recover`', `\`mnemara recover --store ${flag}\``) } : c)) : checks;
}


/**
 * Files runs set aside instead of packing (`<home>/left-out/`): secrets the user may still want, so a warning with
 * how many, how big, since when and where, and how they go (`mnemara gc`), never a failure.
 */
async function checkLeftOut(home: string, days: number): Promise<DoctorCheck> {
  const t = await leftOutTotals(home);
  if (t.files === 0) return { name: 'left-out', ok: true, required: false, detail: `no files set aside in ${t.dir}` };
  return {
    name: 'left-out',
    ok: false,
    required: false,
    detail: `${t.files} file(s) of ${t.runs} run(s), ${formatBytes(t.bytes)}, oldest ${t.oldest}, set aside in ${t.dir} (tokens and credential files the runs wrote; readable only by you)`,
    fix: `copy what you need into your checkout; \`mnemara gc\` removes them after ${days} day(s) (snapshot.leftOutDays), \`mnemara gc --left-out-now\` at once`,
  };
}

/**
 * Temp files in the directory store's `tmp/` whose writer is gone (a create, session or recover killed while
 * packing a blob): a warning with how many, how big, and what frees them. A live writer's are not counted.
 */
async function checkStoreTemp(storeDir: string): Promise<DoctorCheck> {
  const dir = join(storeDir, 'tmp');
  const dead = await deadWriterTemps(dir);
  if (dead.length === 0) return { name: 'store temp', ok: true, required: false, detail: `no temp file of a killed snapshot write in ${dir}` };
  const bytes = dead.reduce((n, t) => n + t.bytes, 0);
  return {
    name: 'store temp',
    ok: false,
    required: false,
    detail: `${dead.length} temp file(s) of snapshot writes whose process is gone, ${formatBytes(bytes)}, in ${dir} (${dead.slice(0, 3).map((t) => t.name).join(', ')}${dead.length > 3 ? ', …' : ''})`,
    fix: '`mnemara recover` (or `mnemara snapshot gc`) removes them; no snapshot uses them',
  };
}

/**
 * Lineage heads the next run cannot start from (a required check: exit 1), then the rollouts on the other heads that
 * were never extracted (a session killed during phase 1; a warning, `recover` runs the pipeline).
 */
async function checkHeadsAndPending(storeDir: string, layout: MemoryLayout): Promise<DoctorCheck[]> {
  let damaged: DamagedRef[];
  try {
    damaged = await findDamagedHeads(await openStore(storeDir));
  } catch (err) {
    return [{ name: 'heads', ok: false, required: false, detail: `not checked: ${(err as Error).message}` }];
  }
  const heads: DoctorCheck = damaged.length === 0
    ? { name: 'heads', ok: true, required: true, detail: 'every lineage head names a snapshot whose manifest and blobs are present' }
    : {
        name: 'heads',
        ok: false,
        required: true,
        detail: damaged.map((d) => `the head of ${d.name} (${d.id}) is damaged: ${d.error}`).join('; '),
        fix: `${DAMAGED_HEAD_HINT}; \`mnemara snapshot verify\` checks every snapshot`,
      };
  return [heads, await checkPending(storeDir, layout, new Set(damaged.map((d) => d.name)))];
}

/** Rollouts on a lineage head that were never extracted (a session killed during phase 1): `recover` runs the pipeline. */
async function checkPending(storeDir: string, layout: MemoryLayout, damaged: ReadonlySet<string>): Promise<DoctorCheck> {
  try {
    const pending = await findPendingOnHeads(await openStore(storeDir), layout, undefined, damaged);
    if (pending.length === 0) return { name: 'pending', ok: true, required: false, detail: 'every rollout on a lineage head is extracted' };
    return {
      name: 'pending',
      ok: false,
      required: false,
      detail: pending.map((p) => `${p.rolloutIds.length} rollout(s) on the head of ${p.lineage} not extracted yet (${p.rolloutIds.slice(0, 3).join(', ')}${p.rolloutIds.length > 3 ? ', …' : ''})`).join('; '),
      fix: '`mnemara recover` extracts and consolidates them (the next run on each lineage does too)',
    };
  } catch (err) {
    // A head whose blob reads back damaged (a flipped bit the size check cannot see) fails like a missing one.
    if (err instanceof SnapshotCorruptError) return { name: 'pending', ok: false, required: true, detail: `not checked: ${err.message}`, fix: DAMAGED_HEAD_HINT };
    return { name: 'pending', ok: false, required: false, detail: `not checked: ${(err as Error).message}` };
  }
}

/** Rollouts of crashed or failed sessions that reached no lineage head (a warning: `mnemara recover` adopts them). */
async function checkOrphans(home: string, storeDir: string): Promise<DoctorCheck> {
  try {
    const orphans = await findOrphans(await openStore(storeDir), home);
    const n = orphans.reduce((k, o) => k + new Set([...o.transcripts.map((t) => t.rolloutId), ...o.snapshots.flatMap((s) => s.rolloutIds)]).size, 0);
    if (n === 0) return { name: 'orphans', ok: true, required: false, detail: 'every rollout is on a lineage head' };
    return {
      name: 'orphans',
      ok: false,
      required: false,
      detail: `${n} rollout(s) on no head, or whose code is on no head or branch, on lineage(s) ${orphans.map((o) => o.lineage).join(', ')}`,
      fix: '`mnemara recover` brings them into their lineage memory (the next run on each lineage does too)',
    };
  } catch (err) {
    return { name: 'orphans', ok: false, required: false, detail: `not checked: ${(err as Error).message}` };
  }
}

/**
 * This home's sandbox containers whose session process is gone, and loop devices of sandboxes whose container is
 * gone (a warning: they hold memory, disk and process slots, and a killed session's container holds its unsaved
 * work). Containers without a home label (older versions) are named apart: they may be another home's.
 */
/**
 * The recover command(s) for stranded sandboxes: with `--store S` for those whose session wrote to another store
 * than the one doctor opened (trial 23 F5: following a plain `mnemara recover` put the rescue in the home's store).
 */
function recoverIn(stranded: GoneSandbox[]): string {
  const stores = [...new Set(stranded.map((g) => g.otherStore ?? ''))];
  return stores.map((s) => (s ? `\`mnemara recover --store ${s}\`` : '`mnemara recover`')).join(' (and ') + (stores.length > 1 ? ')' : '');
}

async function checkGoneSandboxes(home: string, storeDir: string): Promise<DoctorCheck> {
  try {
    const all = await findGoneSandboxes(await openStore(storeDir), home);
    const gone = all.filter((g) => !g.unowned);
    const unowned = all.filter((g) => g.unowned);
    const left = await dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.owner}=1`] } });
    const disks = await listOrphanDisks(new Set(left.map((c) => (c.Names[0] ?? '').replace(/^\//, ''))), home);
    if (gone.length === 0 && disks.length === 0 && unowned.length === 0) return { name: 'sandboxes', ok: true, required: false, detail: 'no sandbox left behind by a session that is gone' };
    // The same rule as recover's (`findGoneSandboxes`): unsaved work, saved work of a killed session, or a leftover.
    const stranded = gone.filter((g) => g.stranded);
    const saved = gone.filter((g) => !g.stranded && g.killed && g.savedIn !== null);
    const leftovers = gone.filter((g) => !g.stranded && !saved.includes(g));
    const parts = [
      ...(stranded.length ? [`${stranded.length} container(s) of killed sessions that may hold unsaved work (${stranded.map((g) => `${g.name}: rollout ${g.rolloutId} of ${g.lineage}`).join(', ')})`] : []),
      ...(saved.length ? [`${saved.length} container(s) of killed sessions whose work is already in a workspace snapshot (${saved.map((g) => `${g.name}: rollout ${g.rolloutId} in ${g.savedIn}`).join(', ')})`] : []),
      ...(leftovers.length ? [`${leftovers.length} leftover container(s) of sessions that are gone (${leftovers.map((g) => g.name).join(', ')})`] : []),
      ...(disks.length ? [`${disks.length} loop device(s) or unattached image(s) of removed sandboxes (${disks.map((d) => d.device ?? d.backingFile).join(', ')})`] : []),
      ...(unowned.length ? [`${unowned.length} container(s) without a home label, made by an older mnemara, perhaps for another MNEMARA_HOME (${unowned.map((g) => g.name).join(', ')})`] : []),
    ];
    const fixes = [
      ...(stranded.length ? [`${recoverIn(stranded)} snapshots each and removes it; what differs from the head is kept as the branch LINEAGE@<rollout-id> (a sandbox the run never changed needs none)`] : []),
      ...(saved.length ? ['`mnemara recover` adopts their rollouts and removes them (nothing left to snapshot)'] : []),
      ...(leftovers.length ? ['`mnemara sandbox prune` removes the leftovers (and detaches their devices)'] : []),
      ...(disks.length ? ['`mnemara recover` (or `mnemara sandbox prune`) detaches the devices and removes their images'] : []),
      ...(unowned.length ? ['once no other home needs them (run `mnemara recover` there first), `mnemara sandbox prune --include-unlabelled` removes the unlabelled ones'] : []),
    ];
    return { name: 'sandboxes', ok: false, required: false, detail: parts.join('; '), fix: fixes.join('; ') };
  } catch (err) {
    return { name: 'sandboxes', ok: false, required: false, detail: `not checked: ${(err as Error).message}` };
  }
}

function render(checks: DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.flatMap((c) => {
    const mark = c.ok ? '✓' : c.required ? '✗' : '!';
    return [`${mark} ${c.name.padEnd(width)}  ${c.detail}`, ...(c.ok || !c.fix ? [] : [`  ${' '.repeat(width)}  fix: ${c.fix}`])];
  });
  const failed = checks.filter((c) => !c.ok && c.required).length;
  const warned = checks.filter((c) => !c.ok && !c.required).length;
  lines.push('', failed ? `${failed} check(s) failed` : `ready${warned ? ` (${warned} warning(s))` : ''}`);
  return lines.join('\n');
}

/** Registers `mnemara doctor`: checks what mnemara needs on this machine; exit 1 when something required is missing. */
export function registerDoctorCommand(program: Command): void {
  const cmd = program
    .command('doctor')
    .summary('check Node, the Docker engine, the sandbox image, disk, the store and model access')
    .description(
      'Check this machine: Node version, a Docker engine that answers, the sandbox image built and current, ' +
        'free disk for images and snapshots, and model access (ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL; a warning only).\n\n' +
        'Each failed check says how to fix it. Exit code 1 when a required check fails.',
    )
    .option('--json', 'print the checks as one JSON document: {ok, checks: [{name, ok, required, detail, fix}]}');
  addConfigOptions(cmd).action(async (opts: ConfigCliOptions & { json?: boolean }) => {
      const { config } = loadCliConfig(opts);
      const checks = await runDoctorChecks({
        ...(config.sandbox.dockerHost ? { dockerHost: config.sandbox.dockerHost } : {}),
        ...(config.sandbox.image ? { image: config.sandbox.image } : {}),
        ...(config.snapshot.store ? { store: config.snapshot.store } : {}),
        home: config.home,
        leftOutDays: config.snapshot.leftOutDays,
        layout: config.memory.layout,
      });
      const ok = checks.every((c) => c.ok || !c.required);
      emit(Boolean(opts.json), { ok, checks }, () => render(checks));
      process.exitCode = ok ? EXIT.ok : EXIT.failed;
    });
}
