/**
 * Sandbox exec round trip (issue 2): the median wall time of `DockerSandbox.exec('true')` — create, start,
 * demultiplex, exit code from exec inspect — next to `docker exec <container> true` from the command line on the
 * same container, measured alternately in the same run; and `LocalSandbox.exec('true')` next to spawning `true`
 * on the host; a 100 MB tree through putArchive/getArchive next to `docker exec -i … tar -x` and `docker cp … -`;
 * and starting + removing a DockerSandbox next to `docker run --rm <image> true`. Prints medians and ratios. `npm run bench exec`, or `npx tsx bench/exec.bench.ts [--quick]`.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import * as tar from 'tar';
import { execa } from 'execa';
import { DockerSandbox, LocalSandbox, sandboxImageTag } from '../src/sandbox/index.js';
import { median, timeMs as time } from './support/stats.js';

const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

/** Writes `megabytes` MB of incompressible files (1000 of them) under `dir/tree` and tars them to `dir/tree.tar`. */
async function sandboxWithArchive(dir: string, megabytes: number): Promise<{ tarPath: string; megabytes: number }> {
  const tree = join(dir, 'tree');
  const perFile = Math.floor((megabytes * 1024 * 1024) / 1000);
  for (let d = 0; d < 10; d++) {
    await mkdir(join(tree, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) await writeFile(join(tree, `d${d}`, `f${f}.bin`), randomBytes(perFile));
  }
  const tarPath = join(dir, 'tree.tar');
  await pipeline(tar.c({ cwd: tree, portable: true }, ['.']) as unknown as Readable, createWriteStream(tarPath));
  return { tarPath, megabytes };
}

/** Reads a stream to its end the way consumers do (pipeline, flowing), dropping the bytes. */
async function drain(stream: Readable): Promise<void> {
  await pipeline(stream, new Writable({ write: (_chunk, _enc, done) => done() }));
}

export default async function execBench(opts: { quick: boolean }): Promise<void> {
  const n = opts.quick ? 10 : 50;
  const rows: [string, number, string][] = [];

  const docker = await DockerSandbox.create({ sessionId: 'exec-bench' });
  try {
    for (let i = 0; i < 3; i++) {
      await docker.exec('true');
      await execa('docker', ['exec', docker.id, 'true']);
    }
    const api: number[] = [];
    const cli: number[] = [];
    for (let i = 0; i < n; i++) {
      api.push(await time(() => docker.exec('true')));
      cli.push(await time(() => execa('docker', ['exec', docker.id, 'true'])));
    }
    const [a, c] = [median(api), median(cli)];
    rows.push(['docker exec true (CLI, baseline)', c, '1.00']);
    rows.push(["DockerSandbox.exec('true')", a, (a / c).toFixed(2)]);
  } finally {
    await docker.close();
  }

  // Archives: a 100 MB tree (1000 files) in and out, against the docker CLI doing the same on the same container.
  // Each extraction goes into a fresh directory (MACHINE-NOTES: refilling a just-emptied one measures the disk).
  const work = await mkdtemp(join(tmpdir(), 'mnemara-exec-bench-'));
  const archive = await sandboxWithArchive(work, opts.quick ? 20 : 100);
  try {
    const box = await DockerSandbox.create({ sessionId: 'exec-bench-archive' });
    try {
      const putApi: number[] = [];
      const putCli: number[] = [];
      const getApi: number[] = [];
      const getCli: number[] = [];
      for (let i = 0; i < (opts.quick ? 2 : 5); i++) {
        putApi.push(await time(() => box.putArchive(createReadStream(archive.tarPath), `api-${i}`)));
        putCli.push(
          await time(() =>
            execa('docker', ['exec', '-i', box.id, 'bash', '-c', `mkdir -p cli-${i} && tar -x -p -C cli-${i}`], {
              inputFile: archive.tarPath,
            }),
          ),
        );
        getApi.push(await time(async () => drain(await box.getArchive(`api-${i}`))));
        getCli.push(await time(() => execa('docker', ['cp', `${box.id}:/workspace/cli-${i}/.`, '-'], { stdout: 'ignore' })));
      }
      const mb = `${archive.megabytes} MB`;
      rows.push([`docker exec -i tar -x, ${mb} (CLI, baseline)`, median(putCli), '1.00']);
      rows.push([`putArchive, ${mb}`, median(putApi), (median(putApi) / median(putCli)).toFixed(2)]);
      rows.push([`docker cp ctr:dir/. -, ${mb} (CLI, baseline)`, median(getCli), '1.00']);
      rows.push([`getArchive, ${mb}`, median(getApi), (median(getApi) / median(getCli)).toFixed(2)]);
    } finally {
      await box.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  // Start + remove: a hardened sandbox against the plainest container run, alternated.
  const image = await sandboxImageTag();
  const starts: number[] = [];
  const runs: number[] = [];
  for (let i = 0; i < (opts.quick ? 3 : 8); i++) {
    starts.push(await time(async () => (await DockerSandbox.create({ sessionId: 'exec-bench-start' })).close()));
    runs.push(await time(() => execa('docker', ['run', '--rm', '--network', 'none', image, 'true'])));
  }
  const [st, ru] = [median(starts), median(runs)];
  rows.push(['docker run --rm <image> true (baseline)', ru, '1.00']);
  rows.push(['DockerSandbox.create + close', st, (st / ru).toFixed(2)]);

  const local = await LocalSandbox.create({ sessionId: 'exec-bench' });
  try {
    const host: number[] = [];
    const sb: number[] = [];
    for (let i = 0; i < n; i++) {
      host.push(await time(() => execa('true')));
      sb.push(await time(() => local.exec('true')));
    }
    const [h, l] = [median(host), median(sb)];
    rows.push(['execa true on the host (baseline)', h, '1.00']);
    rows.push(["LocalSandbox.exec('true')", l, (l / h).toFixed(2)]);
  } finally {
    await local.close();
  }

  console.log(`\nsandbox round trips, medians (exec: ${n} alternated pairs; archives: ${opts.quick ? 2 : 5}; start: ${starts.length})`);
  console.log(`${'what'.padEnd(46)} ${'median'.padStart(10)}  ratio`);
  for (const [what, ms, ratio] of rows) console.log(`${what.padEnd(46)} ${fmt(ms).padStart(10)}  ${ratio}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await execBench({ quick: process.argv.includes('--quick') });
}
