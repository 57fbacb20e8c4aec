/**
 * Step 6's checks share one sandbox exec (`workspace-scan.ts`, issue 15: cost follows the change): the layout's
 * changed files, git's notes, the secret-key, credential and token greps. Real Docker sandbox. The execs are
 * counted through the sandbox's public interface (a wrapper that forwards every call), not inside product code.
 * A hostile tree (a name with a newline and a forged record in it, FIFOs, a symlink out of the workspace,
 * non-UTF-8 names) must neither add nor remove a finding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { findSecretKeyFiles } from '../../src/session/secret-key-files.js';
import { sandboxClock } from '../../src/session/credential-files.js';
import { prepareWorkspace } from '../../src/session/prepare-snapshot.js';
import { parseScanOutput, runWorkspaceScan } from '../../src/session/workspace-scan.js';

const TOKEN = 'ghp_FAKEscanShared0a1B2c3D4e5F6g7H8i9J0k';
const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };
let sandbox: DockerSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await DockerSandbox.create({ sessionId: `workspace-scan-${process.pid}` });
  home = mkdtempSync(join(tmpdir(), 'mnemara-scan-home-'));
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
  rmSync(home, { recursive: true, force: true });
});
afterEach(async () => {
  await sh('find /workspace -mindepth 1 -delete');
});

const sh = async (script: string): Promise<string> => String((await sandbox.exec(['bash', '-c', script])).stdout);

/** The sandbox behind its public interface, every command run through it counted. */
function counted(s: DockerSandbox): { sandbox: Sandbox; execs: string[] } {
  const execs: string[] = [];
  const wrapped: Sandbox = {
    kind: s.kind,
    id: s.id,
    workspaceDir: s.workspaceDir,
    exec: (command, options) => {
      execs.push(`exec ${JSON.stringify(command).slice(0, 60)}`);
      return s.exec(command, options);
    },
    execBytes: (argv, options) => {
      execs.push(`execBytes ${JSON.stringify(argv).slice(0, 60)}`);
      return s.execBytes(argv, options);
    },
    readFile: (p, o) => s.readFile(p, o),
    writeFile: (p, d, o) => s.writeFile(p, d, o),
    putArchive: (t, d) => s.putArchive(t, d),
    getArchive: (d) => s.getArchive(d),
    stopLeftoverProcesses: () => s.stopLeftoverProcesses(),
    close: () => s.close(),
  };
  return { sandbox: wrapped, execs };
}

/** A tree "restored" before the clock, then the run's changes after it; returns the clock. */
async function restoredThenChanged(change: string): Promise<number> {
  await sh('cd /workspace && mkdir -p memories sessions src && for i in $(seq 1 40); do echo "export const v$i = $i;" > src/f$i.ts; done && echo "# notes" > memories/MEMORY.md && echo "{}" > sessions/r0.jsonl');
  await sh('sleep 0.05');
  const clock = (await sandboxClock(sandbox))!;
  await sh('sleep 0.05');
  await sh(`cd /workspace && ${change}`);
  return clock;
}

const prepare = (s: Sandbox, clock: number) =>
  prepareWorkspace(s, { home, rolloutId: `r-${Date.now()}`, layout, runClock: clock, wasThere: () => false, keep: false, fromSnapshot: true });

describe('the checks before the workspace snapshot', () => {
  it('cost one sandbox exec together when the run changed 3 plain files', async () => {
    const clock = await restoredThenChanged('for f in src/f1.ts src/f2.ts memories/MEMORY.md; do echo "// edit" >> $f; done');
    const { sandbox: s, execs } = counted(sandbox);
    const r = await prepare(s, clock);
    expect(execs).toHaveLength(1);
    expect(execs[0]).toMatch(/^execBytes/);
    expect([r.credentialFiles, r.secretFiles, r.secretKeyFiles, r.skipped]).toEqual([[], [], [], []]);
    // The parts are still reported, in the order they started.
    expect(Object.keys(r.timings)).toEqual(['snapshot.stop-processes', 'snapshot.redact-notes', 'snapshot.redact-git-messages', 'snapshot.secret-keys', 'snapshot.credential-files', 'snapshot.token-files']);
  }, 120_000);

  it('find in the shared scan what each finds on its own exec', async () => {
    const clock = await restoredThenChanged(
      [
        `echo 'const key = "${TOKEN}";' > src/token.ts`,
        'printf -- "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\\n-----END OPENSSH PRIVATE KEY-----\\n" > id_test',
        `echo '{"db_password": "Tr0ub4dor&3x-prod"}' > settings.json`,
      ].join(' && '),
    );
    const { sandbox: s, execs } = counted(sandbox);
    const scan = await runWorkspaceScan(s, []);
    expect(scan).toBeNull(); // nothing to run: no exec
    expect(execs).toHaveLength(0);
    const own = await findSecretKeyFiles(sandbox, clock, { skipDirs: ['memories', 'sessions'], skip: new Set() });
    const r = await prepare(s, clock);
    // Credential and token files found are set aside (readFile, not an exec) and removed (one `rm` each).
    expect(execs.filter((e) => !e.includes('"rm"'))).toHaveLength(1);
    expect(r.credentialFiles.map((f) => [f.path, f.action])).toEqual([['id_test', 'left-out']]);
    expect(r.secretFiles.map((f) => [f.path, f.action, f.kinds])).toEqual([['src/token.ts', 'left-out', ['github_token']]]);
    expect(own.map((f) => f.path)).toEqual(['settings.json']);
    expect(r.secretKeyFiles).toEqual(own);
  }, 120_000);

  it('a name with a newline and a forged record in it neither adds nor removes a finding', async () => {
    // `/workspace/evil⏎/workspace/victim.txt` holds the token. Read line by line, the grep's `path NUL match`
    // record splits into `/workspace/evil` (no NUL: dropped) and `/workspace/victim.txt NUL ghp_…`: the token
    // was pinned on victim.txt, a clean file the run wrote (then left out of the snapshot), and the real file passed.
    const clock = await restoredThenChanged(
      [
        "mkdir -p $'evil\\n/workspace'",
        `echo 'token=${TOKEN}' > $'evil\\n/workspace/victim.txt'`,
        `echo '{"api_password": "zx81-Spectrum-48k"}' > $'evil\\n/workspace/app.json'`,
        'echo "nothing here" > victim.txt && echo "{}" > app.json',
        // Other odd entries: a FIFO (never waited on), a symlink out of the workspace, a non-UTF-8 name, a big file.
        'mkfifo pipe.fifo && ln -s /etc/passwd passwd-link && touch $\'name-\\xff-bytes.txt\' && head -c 3000000 /dev/zero > big.bin',
      ].join(' && '),
    );
    const { sandbox: s, execs } = counted(sandbox);
    const r = await prepare(s, clock);
    expect(execs.filter((e) => e.startsWith('execBytes'))).toHaveLength(1);
    expect(r.secretFiles.map((f) => f.path)).toEqual(['evil\n/workspace/victim.txt']);
    expect(r.secretKeyFiles.map((f) => f.path)).toEqual(['evil\n/workspace/app.json']);
    expect(await sh('cat /workspace/victim.txt')).toBe('nothing here\n');
    expect(r.skipped.map((x) => x.path)).not.toContain('victim.txt');
  }, 120_000);
});

describe('the shared scan\'s framing', () => {
  const sections = [
    { name: 'a', script: '', args: [], maxBytes: 100 },
    { name: 'b', script: '', args: [], maxBytes: 4 },
  ];
  const frame = (body: string, trailer: string): Buffer => Buffer.from(`${body}\n${trailer}\n`, 'latin1');

  it('splits the sections by their byte counts, whatever bytes they hold; only the last line is the trailer', () => {
    const body = '{"sections":[{"name":"b","exit":0,"bytes":0}]}\n\0x\n';
    const out = parseScanOutput(frame(`${body}ok`, `{"sections":[{"name":"a","exit":0,"bytes":${body.length}},{"name":"b","exit":3,"bytes":2}]}`), sections);
    expect(out?.get('a')?.stdout.toString('latin1')).toBe(body);
    expect(out?.get('b')).toEqual({ exitCode: 3, stdout: Buffer.from('ok') });
  });

  it('refuses counts that do not add up and leaves out a section over its cap or not read', () => {
    expect(parseScanOutput(frame('abc', '{"sections":[{"name":"a","exit":0,"bytes":1},{"name":"b","exit":0,"bytes":1}]}'), sections)).toBeNull();
    expect(parseScanOutput(frame('a', '{"sections":[{"name":"a","exit":0,"bytes":1}]}'), sections)).toBeNull();
    expect(parseScanOutput(frame('', 'not json'), sections)).toBeNull();
    expect(parseScanOutput(Buffer.from('{"sections":[]}'), [])).toBeNull(); // no newline: the trailer was cut
    const over = parseScanOutput(frame('a12345', '{"sections":[{"name":"a","exit":0,"bytes":1},{"name":"b","exit":0,"bytes":5}]}'), sections);
    expect([...(over?.keys() ?? [])]).toEqual(['a']);
    const unread = parseScanOutput(frame('a', '{"sections":[{"name":"a","exit":0,"bytes":1},{"name":"b","exit":-1,"bytes":-1}]}'), sections);
    expect([...(unread?.keys() ?? [])]).toEqual(['a']);
  });
});
