import { splitCommand, workSegments } from './commands.js';
import { commandOf, succeeded, type RolloutView } from './rollout.js';

/**
 * Files of the workspace a run found missing: a command named the path (`bash scripts/gen.sh`, `cat
 * config/app.yml`) and its output said the path does not exist ("No such file or directory", "cannot access",
 * "can't open file"), and the run did not make it, nor name it again in a command that passed. Workspace paths only
 * (relative, or under /workspace/), as the agent typed them, with a folder or a file extension; a path only a
 * tool's output names (a build's own intermediate file) is not counted: that is a missing step, not a moved
 * file. Phase 2 reads these (the summary's "path (missing)") to retire older entries that name the path: the
 * repository has moved it, whatever language the run said so in.
 */
export function filesMissing(view: RolloutView): string[] {
  const out: string[] = [];
  view.steps.forEach((step, k) => {
    const cmd = commandOf(step);
    if (!cmd || !step.output) return;
    const lines = step.output.split('\n').filter((l) => NOT_THERE.test(l));
    if (lines.length === 0) return;
    for (const seg of workSegments(splitCommand(cmd))) {
      // The words as typed: a script run by an interpreter is its path (`bash tools/gen.sh`), not its program name.
      for (const a of seg.text.split(/\s+/)) {
        const path = a.replace(/^\/workspace\//, '').replace(/^\.\//, '');
        if (!isWorkspacePath(a, path) || out.includes(path) || !lines.some((l) => namesPath(l, path))) continue;
        if (view.filesChanged.includes(path) || laterPassed(view, k, path)) continue;
        out.push(path);
      }
    }
  });
  return out;
}

const NOT_THERE = /No such file or directory|cannot access|can't open file|does not exist|cannot find the path/i;

function isWorkspacePath(arg: string, path: string): boolean {
  if (!path || arg.startsWith('-') || /[*?$~`"'=]/.test(arg) || (arg.startsWith('/') && !arg.startsWith('/workspace/'))) return false;
  return path.includes('/') ? /^[\w.-]+(\/[\w.-]+)+$/.test(path) : /^[\w-]+\.[A-Za-z]\w{0,5}$/.test(path);
}

function namesPath(line: string, path: string): boolean {
  return new RegExp(`(?<![\\w.-])(?:/workspace/|\\./)?${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/-]|\\.\\w)`).test(line);
}

/** A later command that passed names the path: it was there after all (made, or found under that name). */
function laterPassed(view: RolloutView, index: number, path: string): boolean {
  return view.steps.slice(index + 1).some((s) => succeeded(s) && (commandOf(s) ?? '').includes(path));
}
