import type { Segment } from '../commands.js';
import type { Step } from '../rollout.js';
import { environmentPath } from './config-paths.js';

/**
 * Whether the command that passed is another form of the one that failed, and the form was the lesson (not a
 * plain retry): another binary by its path, a runner added in front; and whether the failure was about how the
 * command was started (not found, not executable).
 */

/**
 * The resolver runs the same command through a runner the failure lacked (`prove -lr t` failed, `carton exec --
 * prove -lr t` passed; `rspec` → `bundle exec rspec`): the runner is the lesson, not a retry.
 */
export function runnerAdded(failed: Segment, resolver: Segment): boolean {
  const runner = (s: Segment) => s.core.split(/\s+/).slice(0, Math.max(0, s.core.split(/\s+/).indexOf(s.program))).join(' ');
  return runner(resolver) !== '' && runner(resolver) !== runner(failed);
}

/**
 * The resolver runs another binary of the same name, by its path outside the workspace (`cmake` failed on an
 * old version; `/opt/cmake-3.28.3/bin/cmake` worked): the path is the lesson, not a retry.
 */
export function otherBinary(failed: Segment, resolver: Segment): boolean {
  const word = (s: Segment) => s.core.split(/\s+/)[0] ?? '';
  const path = word(resolver);
  return path !== word(failed) && environmentPath(path);
}

/** The program was not found as typed (exit 127, "command not found"). */
export function notFound(step: Step): boolean {
  return step.exitCode === 127 || /command not found|: not found$/m.test(step.output ?? '');
}

/** The command could not be started as typed (exit 126/127: not executable, not found, bad interpreter). */
export function invocationError(step: Step): boolean {
  return step.exitCode === 126 || step.exitCode === 127 || /Permission denied|command not found|bad interpreter|not executable|No such file or directory/i.test(step.output ?? '');
}
