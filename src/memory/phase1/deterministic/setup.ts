import type { RawMemory } from '../../types.js';
import { essentialCommand, splitCommand, systemPackages, workSegments, type Segment } from '../commands.js';
import { commandOf, failed, succeeded, type RolloutView, type Step } from '../rollout.js';
import { keywordsOf } from './text.js';

/**
 * System packages the run installed (apt-get, apk, dnf …) that succeeded: the workspace needs them and
 * the sandbox image lacks them. One fact listing them all, with the command to install them (including
 * the package-list update and sudo when the run needed those).
 */
export function systemPackagesInstalled(view: RolloutView): RawMemory[] {
  const packages: string[] = [];
  const lines: number[] = [];
  let manager: Segment | undefined;
  let updated = false;
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd || !succeeded(step)) continue;
    for (const seg of workSegments(splitCommand(cmd))) {
      if (seg.category !== 'system') continue;
      if (/\b(update|-Sy)\b/.test(seg.core)) updated = true;
      const pkgs = systemPackages(seg);
      if (pkgs.length === 0) continue;
      manager ??= seg;
      for (const p of pkgs) if (!packages.includes(p)) packages.push(p);
      lines.push(step.callLine);
    }
  }
  if (!manager || packages.length === 0) return [];
  const program = manager.program;
  const sudo = manager.sudo ? 'sudo ' : '';
  const install =
    program === 'apt-get' || program === 'apt'
      ? `${updated ? `${sudo}${program} update && ` : ''}${sudo}${program} install -y ${packages.join(' ')}`
      : `${sudo}${manager.core.split(/\s+/).slice(0, 2).join(' ')} ${packages.join(' ')}`;
  return [
    {
      kind: 'fact',
      text: `System packages this workspace needs that the sandbox image lacks: ${packages.join(', ')}. Install them with \`${install}\`.`,
      evidence: { lines },
      importance: 4,
      keywords: keywordsOf([program, ...packages]),
    },
  ];
}

/**
 * Commands that worked and are worth retyping: dependency installs (they name the package manager), and
 * a test entry point that is specific to the project (`pnpm run test:unit`, `ctest -L unit`,
 * `./scripts/check.sh`): the ecosystem's default (`pytest`, `npm test`, `make test`, `go test ./...`)
 * teaches nothing. Runs limited to a path (`vitest run src/x`) are not the suite. `known` holds commands
 * already covered by another lesson of this rollout.
 */
export function commandsThatWorked(view: RolloutView, known: string[]): RawMemory[] {
  const out: RawMemory[] = [];
  const said = (cmd: string) => known.some((k) => k.includes(`\`${cmd}\``) || k.includes(`${cmd}\``));
  let install: { cmd: string; step: Step; seg: Segment } | undefined;
  let test: { cmd: string; step: Step; seg: Segment } | undefined;
  for (const step of view.steps) {
    const cmdText = commandOf(step);
    if (!cmdText || !succeeded(step)) continue;
    const segs = splitCommand(cmdText);
    for (const seg of workSegments(segs)) {
      if (seg.category === 'install' && isDependencyInstall(seg)) install ??= { cmd: essentialCommand(segs, seg), step, seg };
      if (seg.category === 'test' && isProjectSpecificTest(seg)) test = { cmd: essentialCommand(segs, seg), step, seg };
    }
  }
  // A later failure of the same command means it did not keep working.
  const brokeLater = (c: { step: Step; seg: Segment }) =>
    view.steps.slice(c.step.index + 1).some((s) => failed(s) && (commandOf(s) ?? '').includes(c.seg.core));
  if (install && !said(install.seg.core) && !brokeLater(install)) {
    out.push({
      kind: 'procedure',
      text: `Install the dependencies with \`${install.cmd}\` (worked in this workspace).`,
      evidence: { lines: [install.step.callLine, ...(install.step.resultLine ? [install.step.resultLine] : [])] },
      importance: 3,
      keywords: keywordsOf([install.seg.key, 'install', 'dependencies']),
    });
  }
  if (test && !said(test.seg.core) && !brokeLater(test)) {
    out.push({
      kind: 'procedure',
      text: `Run the tests with \`${test.cmd}\` (passed in this workspace).`,
      evidence: { lines: [test.step.callLine, ...(test.step.resultLine ? [test.step.resultLine] : [])] },
      importance: 3,
      keywords: keywordsOf([test.seg.key, 'tests']),
    });
  }
  return out;
}

function isDependencyInstall(seg: Segment): boolean {
  // `pip install -q --upgrade pip` and single global tools are not the project's dependencies.
  if (/--upgrade\s+pip\b|\s-g\b|--global\b/.test(seg.core)) return false;
  if (seg.program === 'pip' || seg.program === 'pip3' || /-m pip/.test(seg.core)) return /\s-r\s|\s-e\s|\s\.(\[|\s|$)/.test(`${seg.core} `);
  return true;
}

const DEFAULT_TEST = /^(pytest|tox|npm test|pnpm test|yarn test|bun test|npm t|make test|make check|go test|cargo test|ctest|python3? -m pytest|python3? -m unittest|npx vitest|npx jest|vitest|jest|mvn test|gradle test|rspec)$/;

function isProjectSpecificTest(seg: Segment): boolean {
  let args = seg.core.split(/\s+/).slice(1);
  if (/^python3?$/.test(seg.program) && args[0] === '-m') args = args.slice(2);
  // A path argument narrows the run to part of the suite.
  if (args.some((a) => !a.startsWith('-') && /[/.]/.test(a) && !/^(run|test|build)$/.test(a) && a !== 'build')) {
    const isTargetDir = seg.program === 'ctest' && args.includes('--test-dir');
    if (!isTargetDir) return false;
  }
  const pytest = seg.key.includes('pytest');
  const filters = args.filter((a) => /^-(L|E|R)$|^--(label|label-regex|filter|project|selectProjects)\b/.test(a) || (pytest && /^-(k|m)$/.test(a)));
  if (filters.length > 0) return true;
  return !DEFAULT_TEST.test(seg.key) && !(seg.program === 'go' && seg.key.startsWith('go test'));
}
