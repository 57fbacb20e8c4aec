/**
 * Values under secret-named keys in config files (issue 10, eighth trial, M2): found with their key, redacted in a
 * memory file and in a transcript (a `cat` of the file, a heredoc that writes it), and nothing reported or
 * redacted in a real project's config that holds placeholders, references, types and local dev defaults.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { redactFile } from '../../src/memory/redact-document.js';
import { redactLayoutTree } from '../../src/memory/redact-tree.js';
import { configFormOfName, findSecretKeys } from '../../src/memory/secret-keys.js';
import { CONFIG_SECRET_CORPUS, NOT_SECRET_CONFIGS } from './secret-config-corpus.js';

/** A CI workflow: its `run: |` block holds shell lines, so only the file's name says it is YAML. */
const WORKFLOW = 'on: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          npm ci\n          npm run deploy\n        env:\n          deploy_password: fakeworkflowpass\n';

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

  it('redacts a cat of a CI workflow, whose `run: |` block holds shell lines', () => {
    const out = redact(WORKFLOW);
    expect(out).toBe(WORKFLOW.replace('fakeworkflowpass', '[REDACTED:password]'));
    expect(redact(`${WORKFLOW}  release:\n    steps:\n      - run: echo \${{ secrets.DEPLOY_TOKEN }}\n`)).not.toContain('fakeworkflowpass');
  });

  it('leaves code alone: a TypeScript interface, Python assignments from calls', () => {
    const ts = 'export interface Login {\n  password: string;\n  token: Token\n}\n';
    const py = 'password = get_password()\ntoken = os.environ["API_TOKEN"]\n';
    expect(redact(ts)).toBe(ts);
    expect(redact(py)).toBe(py);
  });

  // Re-trial of trial 21: a run's `code.yml` holding an object literal was reported as "holds a secret under clientSecret".
  it('reports no secret for a camel-case variable named after it, with code punctuation after it', () => {
    const yml = 'clientSecret: clientSecret2,\npassword: clientPassword;\napiToken: apiTokenV2,\n';
    expect(findSecretKeys(yml, 'lines')).toEqual([]);
    expect(findSecretKeys('clientSecret: Xk29fQ7pLmN4,\n', 'lines')).toHaveLength(1);
  });

  it('redacts them in a host memory layout before a snapshot of it (snapshot create, --memory-from)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnemara-secret-keys-'));
    try {
      for (const c of CONFIG_SECRET_CORPUS) {
        mkdirSync(join(dir, 'memories', c.path, '..'), { recursive: true });
        writeFileSync(join(dir, 'memories', c.path), c.text);
      }
      // A config whose text as a whole is not one config document (a block scalar of shell lines): only its name says.
      mkdirSync(join(dir, 'memories', 'ci'), { recursive: true });
      writeFileSync(join(dir, 'memories', 'ci', 'deploy.yml'), WORKFLOW);
      await redactLayoutTree(dir, ['memories']);
      const left = CONFIG_SECRET_CORPUS.filter((c) => readFileSync(join(dir, 'memories', c.path), 'utf8').includes(c.secret)).map((c) => c.name);
      expect(left).toEqual([]);
      expect(readFileSync(join(dir, 'memories', 'ci', 'deploy.yml'), 'utf8')).toBe(WORKFLOW.replace('fakeworkflowpass', '[REDACTED:password]'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
