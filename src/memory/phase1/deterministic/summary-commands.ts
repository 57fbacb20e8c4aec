import type { RawMemory } from '../../types.js';
import { sameCommand, splitCommand, workSegments, type Segment } from '../commands.js';
import { lastAssistantText } from '../findings.js';
import { segmentOutcome } from '../outcome.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { isProjectSpecificTest } from './setup.js';
import { clip, keywordsOf } from './text.js';

/**
 * A command the agent wrote out in its closing summary as it typed it, filter and all ("ran `xvfb-run -a cargo test
 * --features e2e | tail -3`"), that ran and passed in this run: the agent's own pick of how to run it here, which
 * no other rule may see (no failure before it, a wrapper the default-command check reads through). The lesson
 * is the command without what only trimmed its output (`| tail -3`, `2>&1`), so that the next run sees all of it.
 * Only a chain of steps, or one step that is more than the ecosystem's default (`pytest -q` alone teaches
 * nothing); never one another entry of the run (`known`) already names.
 */
export function summaryCommands(view: RolloutView, known: string[]): RawMemory[] {
  const final = lastAssistantText(view);
  if (!final) return [];
  const out: RawMemory[] = [];
  for (const m of final.text.matchAll(/`([^`\n]+\|\s*(?:tail|head)\b[^`\n]*)`/g)) {
    const command = withoutFilters(m[1]!);
    const segs = workSegments(splitCommand(command));
    const main = segs.at(-1);
    if (!main || !['test', 'build', 'install', 'system', 'generate'].includes(main.category)) continue;
    if (segs.length === 1 && (main.category !== 'test' || !(isProjectSpecificTest(main) || main.text !== main.core))) continue;
    if (!segs.every((s) => passedIn(view, s)) || named(known, main) || out.some((o) => o.text.includes(`\`${command}\``))) continue;
    out.push({
      kind: 'procedure',
      text: `${main.category === 'test' ? 'Run the tests with' : 'Run'} \`${clip(command, 300)}\` (the agent's closing summary gives it; it passed in this workspace).`,
      evidence: { lines: [final.line] },
      importance: 3,
      keywords: keywordsOf([main.key, ...segs.map((s) => s.key)]),
    });
  }
  return out;
}

/** The command without the filters of its output: `| tail -5`, `| head -20`, `2>&1`, `>/dev/null`. */
function withoutFilters(command: string): string {
  return command
    .replace(/\s*\|\s*(?:tail|head)\b[^|&;]*/g, '')
    .replace(/\s*2>&1/g, '')
    .replace(/\s*&?>\s*\/dev\/null/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A step of the run ran the segment (the same command, however typed) and it passed. */
function passedIn(view: RolloutView, seg: Segment): boolean {
  return view.steps.some((step) => {
    const segs = splitCommand(commandOf(step) ?? '');
    return segs.some((s) => sameCommand(s, seg) && wrapper(s) === wrapper(seg) && segmentOutcome(step, segs, s) === 'passed');
  });
}

/** What is typed in front of the program (`xvfb-run -a`, `VAR=1`): the canonical form leaves it out, the lesson does not. */
const wrapper = (s: Segment): string => s.text.slice(0, Math.max(0, s.text.indexOf(s.core))).replace(/\s+/g, ' ').trim();

function named(known: string[], seg: Segment): boolean {
  return known.some((k) => [...k.matchAll(/`([^`]+)`/g)].some((m) => splitCommand(m[1]!).some((s) => sameCommand(s, seg))));
}
