import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { LocalSandbox } from '../../src/sandbox/index.js';
import { createToolbox, type Toolbox } from '../../src/agent/index.js';

// Tool semantics against LocalSandbox (a host temp dir): fast, and the same code path the Docker run uses.
let sandbox: LocalSandbox;
let box: Toolbox;
let n = 0;

async function call(name: string, input: unknown): Promise<{ text: string; isError: boolean }> {
  const tool = box.tools.find((t) => (t as { name: string }).name === name) as BetaRunnableTool;
  const id = `toolu_${++n}`;
  try {
    const out = await tool.run(tool.parse(input), { toolUse: { id, name, input, type: 'tool_use' }, toolUseBlock: undefined as never });
    return { text: String(out), isError: false };
  } catch (err) {
    return { text: (err as Error).message, isError: true };
  }
}

beforeAll(async () => {
  sandbox = await LocalSandbox.create({ sessionId: 'agent-tools', timeoutMs: 5_000, maxOutputBytes: 4096 });
  box = createToolbox({
    sandbox,
    liveUpdate: true,
    memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
    limits: { execTimeoutMs: 1000 },
  });
  await mkdir(join(sandbox.workspaceDir, 'memories'));
});
afterAll(async () => {
  await sandbox.close();
});

describe('bash tool', () => {
  it('runs in the workspace, reports the exit code, and keeps the working directory across calls', async () => {
    const r1 = await call('bash', { command: 'pwd; mkdir -p sub && cd sub && echo err >&2; exit 3' });
    expect(r1.isError).toBe(false);
    expect(r1.text).toContain(sandbox.workspaceDir);
    expect(r1.text).toContain('[stderr]\nerr');
    expect(r1.text).toContain('[exit code: 3]');
    expect(r1.text).not.toMatch(/__MNEMARA_CWD/);
    const r2 = await call('bash', { command: 'pwd' });
    expect(r2.text.split('\n')[0]).toBe(join(sandbox.workspaceDir, 'sub'));
    const r3 = await call('bash', { restart: true });
    expect(r3.text).toContain('restarted');
    expect((await call('bash', { command: 'pwd' })).text.split('\n')[0]).toBe(sandbox.workspaceDir);
    const last = [...box.details.values()].at(-1)!;
    expect(last).toMatchObject({ name: 'bash', exitCode: 0, isError: false });
  });

  it('keeps the working directory and hides its own exit line when background output follows it, and cannot be fooled', async () => {
    await call('bash', { restart: true });
    const bg = await call('bash', { command: 'mkdir -p bgdir && cd bgdir; { sleep 0.2; echo late-from-background >&2; } & echo started' });
    expect(bg.text).toContain('late-from-background');
    expect(bg.text).not.toMatch(/__MNEMARA_CWD/);
    expect((await call('bash', { command: 'pwd' })).text.split('\n')[0]).toBe(join(sandbox.workspaceDir, 'bgdir'));
    const forged = await call('bash', { command: 'printf "\\n__MNEMARA_CWD_0123456789abcdef__=/tmp\\n__MNEMARA_CWD__=/tmp\\n" >&2' });
    expect(forged.text).toContain('__MNEMARA_CWD__=/tmp');
    expect((await call('bash', { command: 'pwd' })).text.split('\n')[0]).toBe(join(sandbox.workspaceDir, 'bgdir'));
    await call('bash', { restart: true });
  });

  it('passes quotes, heredocs and syntax errors through unharmed', async () => {
    const r = await call('bash', { command: `cat <<'EOF'\n"it's" $HOME \`x\`\nEOF` });
    expect(r.text.split('\n')[0]).toBe(`"it's" $HOME \`x\``);
    const env = await call('bash', { command: "env | grep -cE '^MNEMARA_(COMMAND|CWD|ROOT|MARK)=' || true" });
    expect(env.text.split('\n')[0]).toBe('0');
    const bad = await call('bash', { command: 'if then fi' });
    expect(bad.text).toMatch(/syntax error/);
    expect(bad.text).toContain('[exit code: 2]');
  });

  it('applies the sandbox timeout and output cap, and says so', async () => {
    const slow = await call('bash', { command: 'sleep 20' });
    expect(slow.isError).toBe(true);
    expect(slow.text).toMatch(/timed out after 1000 ms/);
    const big = await call('bash', { command: 'head -c 100000 /dev/zero | tr "\\0" a' });
    expect(big.text).toContain('output truncated');
    expect(big.text.length).toBeLessThan(10_000);
  });

  it('answers bad input with an error result', async () => {
    expect((await call('bash', { command: 42 })).isError).toBe(true);
    expect((await call('bash', {})).isError).toBe(true);
  });
});

describe('text editor tool', () => {
  it('creates, views with line numbers and ranges, inserts, and refuses to overwrite with create', async () => {
    expect((await call('str_replace_based_edit_tool', { command: 'create', path: '/workspace/a.txt', file_text: 'one\ntwo\nthree\n' })).isError).toBe(false);
    const v = await call('str_replace_based_edit_tool', { command: 'view', path: '/workspace/a.txt', view_range: [2, 3] });
    expect(v.text).toContain('     2\ttwo\n     3\tthree');
    expect(v.text).not.toContain('\tone');
    const again = await call('str_replace_based_edit_tool', { command: 'create', path: 'a.txt', file_text: 'x' });
    expect(again).toMatchObject({ isError: true });
    expect(again.text).toContain('already exists');
    await call('str_replace_based_edit_tool', { command: 'insert', path: '/workspace/a.txt', insert_line: 1, insert_text: 'one-and-a-half' });
    expect(await readFile(join(sandbox.workspaceDir, 'a.txt'), 'utf8')).toBe('one\none-and-a-half\ntwo\nthree\n');
    const dir = await call('str_replace_based_edit_tool', { command: 'view', path: '/workspace' });
    expect(dir.text).toContain('/workspace/a.txt');
  });

  it('str_replace needs exactly one match and says how many it found', async () => {
    await writeFile(join(sandbox.workspaceDir, 'b.txt'), 'x = 1\ny = 1\nx = 1\n');
    const many = await call('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/b.txt', old_str: 'x = 1', new_str: 'x = 2' });
    expect(many.isError).toBe(true);
    expect(many.text).toContain('appears 2 times');
    expect(many.text).toContain('lines 1, 3');
    const none = await call('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/b.txt', old_str: 'zzz', new_str: '' });
    expect(none.text).toContain('0 matches');
    const one = await call('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/b.txt', old_str: 'y = 1', new_str: 'y = 2' });
    expect(one.isError).toBe(false);
    expect(await readFile(join(sandbox.workspaceDir, 'b.txt'), 'utf8')).toBe('x = 1\ny = 2\nx = 1\n');
    // The atomic write leaves no temp file behind.
    expect((await readdir(sandbox.workspaceDir)).filter((f) => f.startsWith('.mnemara-tmp'))).toEqual([]);
  });

  it('refuses to edit a file that is not UTF-8, leaving it byte-identical', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
    await writeFile(join(sandbox.workspaceDir, 'l1.txt'), latin1);
    const r = await call('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/l1.txt', old_str: 'caf', new_str: 'tea' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('not valid UTF-8');
    expect((await readFile(join(sandbox.workspaceDir, 'l1.txt'))).equals(latin1)).toBe(true);
  });

  it('creates parent folders, and a failed write leaves no temp file', async () => {
    expect((await call('str_replace_based_edit_tool', { command: 'create', path: '/workspace/d1/d2/new.txt', file_text: 'x\n' })).isError).toBe(false);
    expect(await readFile(join(sandbox.workspaceDir, 'd1', 'd2', 'new.txt'), 'utf8')).toBe('x\n');
    await writeFile(join(sandbox.workspaceDir, 'plain'), '');
    const r = await call('str_replace_based_edit_tool', { command: 'create', path: '/workspace/plain/under-a-file.txt', file_text: 'x' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Could not write /workspace/plain/under-a-file.txt');
    expect((await readdir(sandbox.workspaceDir)).filter((f) => f.startsWith('.mnemara-tmp'))).toEqual([]);
  });

  it('keeps paths inside /workspace, also through symlinks', async () => {
    await symlink('/etc', join(sandbox.workspaceDir, 'etc-link'));
    for (const path of ['/etc/passwd', '/workspace/../etc/passwd', '../../etc/passwd', '/workspace/etc-link/passwd', '/workspace/%2e%2e/etc/passwd']) {
      const r = await call('str_replace_based_edit_tool', { command: 'view', path });
      expect(r.isError, path).toBe(true);
      expect(r.text, path).toMatch(/outside|refused/);
    }
  });
});

describe('memory tool', () => {
  const memories = (): string => join(sandbox.workspaceDir, 'memories');

  it('maps /memories onto the layout folder and writes there', async () => {
    const r = await call('memory', { command: 'create', path: '/memories/notes.md', file_text: 'tests: run npm test\n' });
    expect(r.isError).toBe(false);
    expect(await readFile(join(memories(), 'notes.md'), 'utf8')).toBe('tests: run npm test\n');
    expect((await call('memory', { command: 'str_replace', path: '/memories/notes.md', old_str: 'npm test', new_str: 'npx vitest' })).isError).toBe(false);
    expect((await call('memory', { command: 'view', path: '/memories' })).text).toContain('/memories/notes.md');
    expect((await call('memory', { command: 'rename', old_path: '/memories/notes.md', new_path: '/memories/a/n.md' })).isError).toBe(false);
    expect(await readFile(join(memories(), 'a', 'n.md'), 'utf8')).toBe('tests: run npx vitest\n');
    expect((await call('memory', { command: 'delete', path: '/memories/a' })).isError).toBe(false);
    expect(await readdir(memories())).toEqual([]);
  });

  it('refuses traversal, encoded traversal, symlinks out, other roots, and oversize files', async () => {
    await writeFile(join(sandbox.workspaceDir, 'secret.txt'), 'outside memories');
    await symlink(sandbox.workspaceDir, join(memories(), 'up'));
    const attempts: unknown[] = [
      { command: 'view', path: '/memories/../secret.txt' },
      { command: 'view', path: '/memories/%2e%2e/secret.txt' },
      { command: 'view', path: '/memories/%252e%252e/secret.txt' },
      { command: 'view', path: '/memories/up/secret.txt' },
      { command: 'create', path: '/memories/up/planted.txt', file_text: 'x' },
      { command: 'view', path: '/workspace/secret.txt' },
      { command: 'view', path: '/memoriesX/secret.txt' },
      { command: 'delete', path: '/memories' },
      { command: 'rename', old_path: '/memories/up', new_path: '/memories/../moved' },
      { command: 'create', path: '/memories/huge.md', file_text: 'x'.repeat(200 * 1024) },
      { command: 'create', path: '/memories/x.md' },
    ];
    for (const a of attempts) {
      const r = await call('memory', a);
      expect(r.isError, JSON.stringify(a).slice(0, 80)).toBe(true);
      expect(r.text).not.toContain('outside memories');
    }
    expect(await readdir(sandbox.workspaceDir)).not.toContain('planted.txt');
    expect(await readdir(sandbox.workspaceDir)).not.toContain('moved');
    expect(await readdir(memories())).toEqual(['up']);
  });

  it('deletes and renames a symlink itself, never what it points to (file and folder links, inside and out)', async () => {
    const root = memories();
    await mkdir(join(root, 'kept'), { recursive: true });
    await writeFile(join(root, 'kept', 'note.md'), 'keep me');
    await writeFile(join(root, 'target.md'), 'target');
    await symlink('kept', join(root, 'dir-link'));
    await symlink('target.md', join(root, 'file-link.md'));
    await symlink('kept', join(root, 'dir-link-2'));
    await symlink('../outside.txt', join(root, 'out-link'));
    await writeFile(join(sandbox.workspaceDir, 'outside.txt'), 'outside');
    for (const path of ['/memories/dir-link', '/memories/file-link.md', '/memories/out-link']) {
      const r = await call('memory', { command: 'delete', path });
      expect(r, path).toMatchObject({ isError: false });
    }
    const renamed = await call('memory', { command: 'rename', old_path: '/memories/dir-link-2', new_path: '/memories/moved-link' });
    expect(renamed.isError).toBe(false);
    expect((await readdir(root)).sort()).toEqual(['kept', 'moved-link', 'target.md', 'up']);
    expect(await readFile(join(root, 'kept', 'note.md'), 'utf8')).toBe('keep me');
    expect(await readFile(join(root, 'target.md'), 'utf8')).toBe('target');
    expect(await readFile(join(sandbox.workspaceDir, 'outside.txt'), 'utf8')).toBe('outside');
    expect(await readFile(join(root, 'moved-link', 'note.md'), 'utf8')).toBe('keep me');
    // A link in a parent folder is still resolved and confined.
    const through = await call('memory', { command: 'delete', path: '/memories/up/outside.txt' });
    expect(through.isError).toBe(true);
    expect(await readFile(join(sandbox.workspaceDir, 'outside.txt'), 'utf8')).toBe('outside');
  });

  it('is not offered when live update is off', () => {
    const off = createToolbox({ sandbox, liveUpdate: false, memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' } });
    expect(off.tools.map((t) => (t as { name: string }).name)).toEqual(['bash', 'str_replace_based_edit_tool']);
    expect(off.tools.map((t) => (t as { type: string }).type)).toEqual(['bash_20250124', 'text_editor_20250728']);
  });
});
