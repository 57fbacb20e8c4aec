import { splitCommand } from './commands.js';
import { segmentOutcome } from './outcome.js';
import { commandOf, type RolloutView } from './rollout.js';

/**
 * Files of the workspace a run deleted and did not make again (`rm database/app.sqlite`, `git rm -q
 * config/legacy.yml`): workspace-relative paths, in order. A path is counted when its `rm` ran — it passed, or
 * a segment joined to it by `&&` ran after it — and no later command of the run names it again. Directories
 * (`rm -r`), globs, and files outside the workspace (`/tmp`, `~`) are not counted: they say nothing about
 * what the repository needs. Phase 2 reads these to retire entries that tell to make or use the file.
 */
export function filesDeleted(view: RolloutView): string[] {
  const out: string[] = [];
  const steps = view.steps.filter((s) => commandOf(s) !== undefined);
  steps.forEach((step, k) => {
    const segs = splitCommand(commandOf(step)!);
    segs.forEach((seg, i) => {
      const gitRm = seg.program === 'git' && seg.args[0] === 'rm';
      if (seg.program !== 'rm' && !gitRm) return;
      const args = gitRm ? seg.args.slice(1) : seg.args;
      if (args.some((a) => /^-\w*[rR]|^--recursive$/.test(a))) return;
      const ran = segmentOutcome(step, segs, seg) === 'passed' || (segs[i + 1]?.joiner === '&&' && !/cannot remove|No such file|did not match any files/i.test(step.output ?? ''));
      if (!ran) return;
      for (const a of args) {
        if (a.startsWith('-') || /[*?$~]/.test(a) || (a.startsWith('/') && !a.startsWith('/workspace/'))) continue;
        const path = a.replace(/^\/workspace\//, '').replace(/^\.\//, '');
        if (!path || out.includes(path)) continue;
        const again = steps.slice(k + 1).some((later) => commandOf(later)!.includes(path));
        if (!again) out.push(path);
      }
    });
  });
  return out;
}
