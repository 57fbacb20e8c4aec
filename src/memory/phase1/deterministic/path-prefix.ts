import type { RawMemory } from '../../types.js';
import { splitCommand, workSegments } from '../commands.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/** `export PATH=/opt/zig:$PATH` or `PATH="/opt/x/bin:$PATH" cmd`: the directory put in front of PATH. */
const PREFIX = /^(?:export\s+)?PATH=(["']?)([^:"'\s]+):\$\{?PATH\}?\1(?=\s|$)/;

/** A directory of the toolchain's own (`/opt/zig`, `/usr/lib/go-1.22/bin`, `$HOME/.cargo/bin`), not of the workspace. */
function toolchainDir(dir: string): boolean {
  return /^(\/|\$HOME\/|\$\{HOME\}\/|~\/)/.test(dir) && !/^\/workspace(\/|$)/.test(dir) && !/^\/(usr\/)?s?bin\/?$/.test(dir);
}

/**
 * A toolchain the run reached only through a directory put in front of PATH (issue 12, heldout-o: Zig 0.13.0 at
 * `/opt/zig`, not on PATH; every `zig` command typed after `export PATH=/opt/zig:$PATH &&`). No command failed,
 * so no fix says it; but a program the run never once ran without the prefix, at least twice with it and once
 * with success, is how it runs here. One `procedure` per directory; `known` (texts of the rollout's other
 * lessons) already naming the directory says it.
 */
export function pathPrefixes(view: RolloutView, known: string[]): RawMemory[] {
  const withPrefix = new Map<string, { dir: string; program: string; lines: number[]; passed: boolean; runs: number }>();
  const without = new Set<string>();
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd) continue;
    let dir: string | undefined;
    for (const seg of splitCommand(cmd)) {
      const m = PREFIX.exec(seg.text);
      if (m && toolchainDir(m[2]!)) dir = m[2];
      const [work] = workSegments([seg]);
      // `export PATH=…` itself is category 'env'; what runs after it is the toolchain's program.
      if (!work || work.category === 'env' || work.category === 'install' || work.category === 'system') continue;
      if (!dir) {
        without.add(work.program);
        continue;
      }
      const key = `${dir}\u0000${work.program}`;
      const seen = withPrefix.get(key) ?? { dir, program: work.program, lines: [], passed: false, runs: 0 };
      seen.runs++;
      seen.lines.push(step.callLine);
      seen.passed ||= step.exitCode === 0;
      withPrefix.set(key, seen);
    }
  }
  const out: RawMemory[] = [];
  const said = new Set<string>();
  for (const p of withPrefix.values()) {
    if (p.runs < 2 || !p.passed || without.has(p.program) || said.has(p.dir)) continue;
    if (known.some((k) => k.includes(p.dir))) continue;
    said.add(p.dir);
    out.push({
      kind: 'procedure',
      text: `\`${p.program}\` is not on PATH here: run it after \`export PATH=${clip(p.dir, 120)}:$PATH\` (every \`${p.program}\` command of a run that worked was typed after it).`,
      evidence: { lines: [...new Set(p.lines)].sort((a, b) => a - b).slice(0, 4) },
      importance: 3,
      keywords: keywordsOf([p.program, p.dir]),
    });
  }
  return out;
}
