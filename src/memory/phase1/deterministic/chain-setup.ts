/**
 * Steps that belong to a fix's chain although the command categories do not call them setup (issue 12, "a fix
 * is the whole chain between the failure and the success"): a passing step of a tool no list knows, and the setup
 * typed in front of the failing command itself; and a failure as it would be retyped.
 */
import { andedBefore, essentialCommand, splitCommand, workSegments, type Segment } from '../commands.js';
import { jobOf } from '../command-job.js';
import { commandOf, type Step } from '../rollout.js';
import { environmentPath } from './config-paths.js';
import { related } from './fix-related.js';
import { looksOnly, readOnlyCommand, setsUpService } from './services.js';

/** Programs that move files around: what they do to the workspace is a change of the code, not setup. */
const FILE_MOVERS = /^(rm|mv|cp|ln|chmod|chown|touch|tar|unzip|patch|rsync|install|truncate|dd|kill|pkill|killall|git)$/;

/**
 * The segments of a step that passed which run a tool the categories do not know ('other'), change something
 * (`readOnlyCommand` says no) and are not the failing command's own job (a rerun, a formatter, a linter):
 * `npx cdktf get` (generated the bindings the tests import), `sudo -u postgres psql -c "ALTER USER …"`. A copy
 * into the environment (`cp fonts/*.ttf ~/.fonts/`) counts; a file tool acting on the workspace does not.
 */
export function unknownToolSetup(segs: Segment[], target: Segment): Segment[] {
  return workSegments(segs).filter((s) => {
    if (s.category !== 'other' || s.program === 'cd' || related(s, target) || jobOf(s) || readOnlyCommand(s.text) || looksOnly(s)) return false;
    // Searched for something (`php -m | grep -i pdo`, `pip list | grep x`): it looked.
    if (/^(grep|egrep|rg|ag|findstr|Select-String|sls)$/.test(segs[segs.indexOf(s) + 1]?.piped ? segs[segs.indexOf(s) + 1]!.program : '')) return false;
    if (!FILE_MOVERS.test(s.program)) return true;
    const dest = s.args.filter((a) => !a.startsWith('-')).at(-1) ?? '';
    return /^(cp|install|ln|rsync)$/.test(s.program) && environmentPath(dest);
  });
}

/**
 * The setup typed in front of a failing command that passed (`sudo apt-get install -y gnucobol3 && make test`
 * failed on a missing copybook): the command still needed it, so it belongs to the chain the fix shows.
 */
export function typedSetup(f: { step: Step; seg: Segment }): string[] {
  const segs = splitCommand(commandOf(f.step) ?? '');
  const seg = segs.find((s) => s.text === f.seg.text);
  // Joined to it by `&&`: the command ran (it is the failure), so each of them had passed.
  return seg ? andedBefore(segs, seg).filter((s) => s.category === 'system' || s.category === 'install' || setsUpService(s)).map((s) => s.text) : [];
}

/** A failure's command as it would be retyped (`essentialCommand` of its own line). */
export function typedAs(f: { step: Step; seg: Segment }): string {
  const segs = splitCommand(commandOf(f.step) ?? '');
  const seg = segs.find((s) => s.text === f.seg.text);
  return seg ? essentialCommand(segs, seg) : f.seg.text;
}
