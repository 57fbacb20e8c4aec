/**
 * `npx tsx scripts/eval-memory/corpus-build.ts` — writes the corpus (`test/fixtures/corpus/{dev,heldout,heldout-kinds,heldout-c,heldout-d,heldout-e,heldout-f,heldout-g,heldout-h,heldout-i,heldout-j,heldout-k,heldout-l,heldout-m,heldout-n,heldout-o,heldout-p,heldout-q,heldout-r}/`)
 * from its hand-written specs (`test/fixtures/corpus/src/*.runs.ts`): per run `<id>.json` (Anthropic
 * Messages form, fixtures README) and `<id>.labels.json`. The builder only wraps steps in messages: ids,
 * `[exit code: N]` and `is_error` as the fixtures format defines them.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunSpec, Step } from '../../test/fixtures/corpus/src/spec.js';
import { SANDBOX_PROMPT } from '../../test/fixtures/corpus/src/spec.js';

type Block = Record<string, unknown>;
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

/** One run spec → the transcript document of the fixtures format. */
export function buildTranscript(spec: RunSpec): Record<string, unknown> {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: spec.task }] }];
  let pendingText: string[] = [];
  let n = 0;
  const tag = spec.id.replace(/[^a-z0-9]/gi, '').slice(0, 12);
  const call = (name: string, input: Record<string, unknown>, output: string, isError: boolean) => {
    const id = `toolu_${tag}_${String(++n).padStart(2, '0')}`;
    messages.push({ role: 'assistant', content: [...pendingText.map((text) => ({ type: 'text', text })), { type: 'tool_use', id, name, input }] });
    pendingText = [];
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }] });
  };
  for (const step of spec.steps as Step[]) {
    if ('say' in step) pendingText.push(step.say);
    else if ('sh' in step) {
      const exit = step.exit ?? 0;
      call('bash', { command: step.sh }, `${step.out}${step.out ? '\n' : ''}[exit code: ${exit}]`, exit !== 0);
    } else if ('view' in step) call('str_replace_based_edit_tool', { command: 'view', path: step.view }, step.out, false);
    else if ('create' in step) call('str_replace_based_edit_tool', { command: 'create', path: step.create, file_text: step.text }, `File created successfully at: ${step.create}`, false);
    else if ('edit' in step) call('str_replace_based_edit_tool', { command: 'str_replace', path: step.edit, old_str: step.old, new_str: step.new }, `The file ${step.edit} has been edited.`, false);
    else if ('user' in step) {
      const last = messages.at(-1)!;
      if (last.role !== 'user') throw new Error(`${spec.id}: a user message must follow a tool result`);
      last.content.push({ type: 'text', text: step.user });
    }
  }
  if (spec.final !== undefined) pendingText.push(spec.final);
  if (pendingText.length) messages.push({ role: 'assistant', content: pendingText.map((text) => ({ type: 'text', text })) });
  return { format: 'anthropic-messages/1', id: spec.id, task: spec.task, outcome: spec.outcome, system: spec.system ?? SANDBOX_PROMPT, messages };
}

async function main(): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'corpus');
  const specs: RunSpec[] = [];
  for (const f of (await readdir(join(root, 'src'))).filter((f) => f.endsWith('.runs.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(root, 'src', f)).href)) as { runs: RunSpec[] };
    specs.push(...mod.runs);
  }
  const ids = new Set<string>();
  for (const s of specs) {
    if (ids.has(s.id)) throw new Error(`duplicate id ${s.id}`);
    ids.add(s.id);
    const dir = join(root, s.split);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${s.id}.json`), JSON.stringify(buildTranscript(s), null, 1) + '\n');
    const labels = { id: s.id, repo: s.repo, sequence: s.sequence, lessons: s.lessons, forbidden: s.forbidden ?? [], notes: s.notes };
    await writeFile(join(dir, `${s.id}.labels.json`), JSON.stringify(labels, null, 1) + '\n');
  }
  const bySplit = (x: string) => specs.filter((s) => s.split === x).length;
  console.log(`corpus: ${specs.length} runs (${bySplit('dev')} dev, ${bySplit('heldout')} heldout, ${bySplit('heldout-kinds')} heldout-kinds, ${bySplit('heldout-c')} heldout-c, ${bySplit('heldout-d')} heldout-d, ${bySplit('heldout-e')} heldout-e, ${bySplit('heldout-f')} heldout-f, ${bySplit('heldout-g')} heldout-g, ${bySplit('heldout-h')} heldout-h, ${bySplit('heldout-i')} heldout-i, ${bySplit('heldout-j')} heldout-j, ${bySplit('heldout-k')} heldout-k, ${bySplit('heldout-l')} heldout-l, ${bySplit('heldout-m')} heldout-m, ${bySplit('heldout-n')} heldout-n, ${bySplit('heldout-o')} heldout-o, ${bySplit('heldout-p')} heldout-p, ${bySplit('heldout-q')} heldout-q, ${bySplit('heldout-r')} heldout-r)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
