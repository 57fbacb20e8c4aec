import type { RawMemory } from '../../types.js';
import { sameCommand, splitCommand, workSegments } from '../commands.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { invocationError } from './another-form.js';
import { clip, keywordsOf, quote } from './text.js';

/**
 * A program that is not on PATH, then run another way that started (issue 12, heldout-k: `tlc` not found, then
 * `java -cp /opt/tla/tla2tools.jar tlc2.TLC …` ran the model checker, which found a real violation; the form is
 * the lesson even though that run failed for a reason of the code). The name the shell could not find (from
 * "X: command not found" / "X: not found", else the failed command's program) must be a word or a path segment
 * at the start of a word of the later command, case aside (`tlc` → `tlc2.TLC`, `dafny` → `DAFNY=/opt/dafny/dafny`),
 * and that command must not itself fail to start. `known`: texts of this rollout's other lessons; a form one of
 * them already names is not repeated.
 */
export function foundAnotherWay(view: RolloutView, known: string[]): RawMemory[] {
  const out: RawMemory[] = [];
  const named = new Set<string>();
  for (let i = 0; i < view.steps.length; i++) {
    const miss = view.steps[i]!;
    const cmd = commandOf(miss);
    if (!cmd || miss.exitCode !== 127) continue;
    const said = /^.*?(?:^|\s)([\w.+-]+): (?:command )?not found\s*$/m.exec(miss.output ?? '');
    const name = said?.[1] ?? workSegments(splitCommand(cmd))[0]?.program;
    if (!name || name.length < 3 || named.has(name)) continue;
    const word = new RegExp(`(?:^|[\\s=:/])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
    const later = view.steps.slice(i + 1).find((s) => {
      const c = commandOf(s);
      // Installing it (`apt-get install -y latexmk`) is how it came to be found, not another way to run it.
      return c !== undefined && c !== cmd && workSegments(splitCommand(c)).some((seg) => seg.category !== 'inspect' && seg.category !== 'system' && seg.category !== 'install' && word.test(seg.core));
    });
    const form = later && commandOf(later);
    if (!later || !form || invocationError(later) || later.exitCode === undefined || later.exitCode === null) continue;
    const segs = workSegments(splitCommand(form));
    if (known.some((k) => [...k.matchAll(/`([^`]+)`/g)].some((m) => splitCommand(m[1]!).some((s) => segs.some((g) => sameCommand(s, g)))))) continue;
    named.add(name);
    const run = segs.find((seg) => word.test(seg.core))?.core ?? form;
    out.push({
      kind: 'procedure',
      text: `\`${name}\` is not on PATH in this environment${said ? ` (${quote(clip(said[0].trim(), 120))})` : ''}; it runs as \`${clip(run, 200)}\`.`,
      evidence: { lines: [...new Set([miss.callLine, miss.resultLine ?? miss.callLine, later.callLine])].sort((a, b) => a - b) },
      importance: 3,
      keywords: keywordsOf([name, run]),
    });
  }
  return out;
}
