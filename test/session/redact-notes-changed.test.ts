/**
 * The memory layout's redaction inside the sandbox reads only what the run changed when the tree came from a
 * snapshot (issue 15: cost follows the change). `sessions/` holds every earlier rollout's transcript, restored
 * from snapshots whose layout was redacted when they were written; reading and redacting them all again made
 * every session pay for the lineage's whole history. Real Docker sandbox, real `find`/`tar` inside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/index.js';
import { sandboxClock } from '../../src/session/credential-files.js';
import { redactLayoutInSandbox } from '../../src/session/redact-notes.js';

const TOKEN = 'ghp_FAKEchangedOnly0a1B2c3D4e5F6g7H8i9J0';
const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };
let sandbox: DockerSandbox;

beforeAll(async () => {
  sandbox = await DockerSandbox.create({ sessionId: `redact-changed-${process.pid}` });
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

/** `sh -c` in the sandbox; its stdout. */
const sh = async (script: string): Promise<string> => String((await sandbox.exec(['bash', '-c', script])).stdout);

describe('redacting the memory layout of a tree restored from a snapshot', () => {
  it('reads the files changed after the run clock, renames without taking an unchanged sibling\'s name, and leaves the rest untouched', async () => {
    // As restored: a long history under sessions/ and the notes of earlier runs (their `ctime` before the run).
    // A string that redaction would change stands for "already redacted by an older rule set": it must not be
    // read again (its layer holds it already; reading it is the cost this pass no longer pays).
    await sh(`mkdir -p memories/notes sessions && for i in $(seq 1 50); do head -c 20000 /dev/zero | tr '\\0' a > sessions/r$i.jsonl; done`);
    await sandbox.writeFile('memories/old.md', `kept as restored: ${TOKEN}\n`);
    await sandbox.writeFile('memories/notes/[REDACTED:github_token].md', 'an earlier note whose name was redacted\n');
    await sh('sleep 0.05');
    const clock = (await sandboxClock(sandbox))!;
    await sh('sleep 0.05');
    // What the run wrote.
    await sandbox.writeFile('memories/new.md', `the token is ${TOKEN}\n`);
    await sandbox.writeFile(`memories/notes/${TOKEN}.md`, 'a note named after a token\n');
    await sandbox.writeFile('sessions/new.jsonl', `{"t":"${TOKEN}"}\n`);
    const r = await redactLayoutInSandbox(sandbox, layout, { since: clock });
    expect(r.redacted.sort()).toEqual(['memories/new.md', 'sessions/new.jsonl']);
    expect(await sh('cat memories/new.md sessions/new.jsonl')).not.toContain(TOKEN);
    expect(await sh('cat memories/old.md')).toContain(TOKEN);
    expect(r.renamed).toHaveLength(1);
    const notes = (await sh('ls memories/notes')).split('\n').filter(Boolean).sort();
    expect(notes).toHaveLength(2);
    expect(notes.join('\n')).not.toContain(TOKEN);
    expect(await sh('cat "memories/notes/[REDACTED:github_token].md"')).toBe('an earlier note whose name was redacted\n');
  }, 120_000);

  it('without a clock (a fresh copy of a host directory) reads every file', async () => {
    const r = await redactLayoutInSandbox(sandbox, layout);
    expect(r.redacted).toEqual(['memories/old.md']);
    expect(await sh('cat memories/old.md')).not.toContain(TOKEN);
  }, 120_000);

  it('a layout folder that does not exist is skipped', async () => {
    const r = await redactLayoutInSandbox(sandbox, { memoriesDir: 'no-such-memories', sessionsDir: 'no-such-sessions' }, { since: 0 });
    expect(r).toEqual({ redacted: [], refused: [], renamed: [] });
  }, 120_000);
});
