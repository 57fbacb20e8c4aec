import { splitCommand } from './commands.js';

/**
 * The workspace paths a shell command put back as they were in git, or `'all'` for the whole tree: `git
 * checkout [REV] -- PATH…`, `git restore PATH…` (not `--staged` alone, which keeps the edit in the tree),
 * `git checkout -- .`, `git reset --hard`. A file an agent edited and then reverted this way is no longer
 * changed (round 22, heldout-n: a run the user stopped reverted its one edit, and its unfinished-work note
 * still listed the file, and its root cause — a sentence naming that file — was taken for the task's state).
 * Paths are relative to /workspace; `-C DIR` and a leading `cd DIR` are taken into account.
 */
export function revertedPaths(command: string): string[] | 'all' {
  const out: string[] = [];
  let cwd = '';
  for (const seg of splitCommand(command)) {
    if (seg.program === 'cd') {
      cwd = relative(seg.args[0] ?? '', cwd);
      continue;
    }
    if (seg.program !== 'git') continue;
    const args = [...seg.args];
    let dir = cwd;
    while (args[0] === '-C' && args.length > 1) {
      dir = relative(args[1]!, dir);
      args.splice(0, 2);
    }
    const [sub, ...rest] = args;
    if (sub === 'reset' && rest.includes('--hard')) return 'all';
    let paths: string[] = [];
    if (sub === 'checkout' && rest.includes('--')) paths = rest.slice(rest.indexOf('--') + 1);
    else if (sub === 'restore' && (!rest.includes('--staged') || rest.includes('--worktree') || rest.includes('-W'))) {
      const dash = rest.indexOf('--');
      paths = dash >= 0 ? rest.slice(dash + 1) : rest.filter((a) => !a.startsWith('-'));
    } else continue;
    for (const p of paths) {
      const rel = relative(p, dir);
      if (rel === '') return 'all';
      out.push(rel);
    }
  }
  return out;
}

/** Whether `file` (relative to /workspace) is one of `paths` or lies under one of them. */
export function isReverted(file: string, paths: string[] | 'all'): boolean {
  if (paths === 'all') return true;
  const f = file.replace(/^\/workspace\//, '');
  return paths.some((p) => f === p || f.startsWith(`${p.replace(/\/$/, '')}/`));
}

/** `p` relative to /workspace, read from the directory `cwd` (itself relative to /workspace). */
function relative(p: string, cwd: string): string {
  const parts = p.startsWith('/') ? p.replace(/^\/workspace\/?/, '').split('/') : [...(cwd ? cwd.split('/') : []), ...p.split('/')];
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}
