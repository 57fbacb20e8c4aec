/**
 * Values under secret-named keys in config files (issue 10, eighth trial, M2): found with their key, redacted in a
 * memory file and in a transcript (a `cat` of the file, a heredoc that writes it), and nothing reported or
 * redacted in a real project's config that holds placeholders, references, types and local dev defaults.
 */
import { describe, expect, it } from 'vitest';
import { redact, redactFile } from '../../src/memory/redact.js';
import { configFormOfName, findSecretKeys } from '../../src/memory/secret-keys.js';
import { CONFIG_SECRET_CORPUS, NOT_SECRET_CONFIGS } from './secret-config-corpus.js';

describe('values under secret-named keys in config files', () => {
  it('has at least 8 kinds, each marked FAKE or fake', () => {
    expect(CONFIG_SECRET_CORPUS.length).toBeGreaterThanOrEqual(8);
    for (const c of CONFIG_SECRET_CORPUS) expect(c.secret, c.name).toMatch(/FAKE|fake|RkFLR/);
  });

  it.each(CONFIG_SECRET_CORPUS.map((c) => [c.name, c] as const))('finds %s by its key, never needing the value', (_n, c) => {
    const form = configFormOfName(c.path);
    expect(form, c.path).not.toBeNull();
    const keys = findSecretKeys(c.text, form!);
    expect(keys.map((k) => k.key)).toContain(c.key);
    const hit = keys.find((k) => k.key === c.key)!;
    expect(c.text.slice(hit.start, hit.end)).toBe(c.secret);
    expect(c.text.split('\n')[hit.line - 1]).toContain(c.secret);
  });

  it.each(CONFIG_SECRET_CORPUS.map((c) => [c.name, c] as const))('redacts %s in a memory file, a cat of it and a heredoc that writes it', (_n, c) => {
    const inMemory = redactFile(`memories/${c.path}`, c.text);
    expect(inMemory).not.toContain(c.secret);
    expect(redactFile(c.path, inMemory)).toBe(inMemory);
    // The transcript: the tool output of `cat <file>` is the file's text alone; the command that wrote it holds it too.
    expect(redact(c.text)).not.toContain(c.secret);
    const heredoc = redact(`mkdir -p config && cat > ${c.path} <<'EOF'\n${c.text}EOF\necho written`);
    expect(heredoc).not.toContain(c.secret);
    expect(heredoc).toContain('echo written');
    expect(redact(heredoc)).toBe(heredoc);
  });

  it.each(NOT_SECRET_CONFIGS.map((c) => [c.path, c] as const))('reports and redacts nothing in %s', (_p, c) => {
    expect(findSecretKeys(c.text, configFormOfName(c.path)!)).toEqual([]);
    expect(redactFile(c.path, c.text)).toBe(c.text);
  });

  it('leaves code alone: a TypeScript interface, Python assignments from calls', () => {
    const ts = 'export interface Login {\n  password: string;\n  token: Token\n}\n';
    const py = 'password = get_password()\ntoken = os.environ["API_TOKEN"]\n';
    expect(redact(ts)).toBe(ts);
    expect(redact(py)).toBe(py);
  });
});
