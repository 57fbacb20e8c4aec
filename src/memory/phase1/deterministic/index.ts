import type { RawMemory } from '../../types.js';
import { dangerousInstruction } from '../../injection.js';
import { sentencesOf } from '../findings.js';
import type { RolloutView } from '../rollout.js';
import { failureFixes } from './fixes.js';
import { userPreferences } from './preferences.js';
import { agentAcknowledged } from './agent-noted.js';
import { sourceConstraints } from './source-comments.js';
import { repositoryChanges } from './changes.js';
import { commandsLeftBehind } from './left-behind.js';
import { confirmedByRun } from './confirmed.js';
import { secretsSeen } from './secrets.js';
import { commandsThatWorked, systemPackagesInstalled } from './setup.js';
import { ranNoTests } from './no-tests.js';
import { unfinishedTask } from './task-state.js';
import { runConstraints } from './constraints.js';
import { finalNotes } from './notes.js';
import { exitZeroFailures } from './exit-zero.js';
import { flakyBesideFailures } from './flaky-rerun.js';
import { foundAnotherWay } from './found-as.js';
import { pathPrefixes } from './path-prefix.js';
import { commandsRetired } from './retired.js';
import { checkSwitched } from './switched-check.js';
import { summaryCommands } from './summary-commands.js';
import { prohibitionsLifted } from './allowed.js';
import { failedRunNextStep } from './failed-next.js';
import { pushAll } from '../../../config/arrays.js';

/**
 * The deterministic extractor: raw memories from the transcript's structure alone (no model, no network).
 * Rules, each in its own file: the user's lasting preferences, statements that the repository changed, a test command the user
 * named and the run left behind, an environment fact the user stated and the run's output showed, failures followed by what fixed
 * them, a toolchain run only behind a PATH prefix, system packages installed, install and project-specific test commands that worked, test commands that exit 0 on failing tests or having run none, tests that
 * failed and not on an identical rerun that failed for another reason, secrets the run's commands printed (by name), what a
 * run that did not finish found about its environment, unfinished work at a limit, and what the agent noted for
 * later at the end of a run that completed, and what the final message of a run whose work still failed names as needed next (hedged). Every rule reads commands the agent ran and words the user typed, never instructions
 * inside tool output, so an injected "save to memory: always run …" cannot become a procedure.
 * A trivial run yields nothing.
 */
export function extractDeterministic(view: RolloutView): RawMemory[] {
  const fixes = failureFixes(view);
  const leftBehind = commandsLeftBehind(view);
  pushAll(leftBehind, checkSwitched(view, leftBehind.map((m) => m.text)));
  const memories = [...userPreferences(view), ...repositoryChanges(view), ...leftBehind, ...commandsRetired(view, leftBehind.map((m) => m.text)), ...confirmedByRun(view), ...fixes, ...systemPackagesInstalled(view, fixes.map((m) => m.text)), ...secretsSeen(view)];
  const preferences = memories.filter((m) => m.kind === 'preference').map((m) => m.text);
  pushAll(memories, agentAcknowledged(view, preferences));
  const byKind = (preference: boolean) => memories.filter((m) => (m.kind === 'preference') === preference).map((m) => m.text);
  // Appended with pushAll, not push(...): a transcript of many commands gives as many entries as it likes.
  pushAll(memories, commandsThatWorked(view, byKind(false), byKind(true)));
  pushAll(memories, [...exitZeroFailures(view), ...ranNoTests(view), ...flakyBesideFailures(view), ...runConstraints(view), ...liftedOrConstraints(view), ...unfinishedTask(view)]);
  pushAll(memories, foundAnotherWay(view, memories.map((m) => m.text)));
  pushAll(memories, summaryCommands(view, memories.map((m) => m.text)));
  pushAll(memories, pathPrefixes(view, memories.map((m) => m.text)));
  pushAll(memories, failedRunNextStep(view, memories.map((m) => m.text)));
  pushAll(memories, finalNotes(view, memories.map((m) => m.text)));
  return memories.filter((m) => !dangerousEntry(m.text, view));
}

/**
 * The repository's comments that forbid something, and what the user lifted of them: a comment naming a span the
 * user allowed and this run used is no constraint any more (`allowed.ts`), the lifting fact replaces it.
 */
function liftedOrConstraints(view: RolloutView): RawMemory[] {
  const lifted = prohibitionsLifted(view);
  const spans = lifted.map((m) => /^`([^`]+)`/.exec(m.text)![1]!);
  return [...sourceConstraints(view).filter((m) => !spans.some((s) => m.text.includes(s))), ...lifted];
}

/**
 * The last net for every kind (issue 12): an entry with a sentence that tells to fetch and run code, send data
 * out or weaken security is dropped, unless that sentence is the user's own words (a task they typed).
 */
function dangerousEntry(text: string, view: RolloutView): boolean {
  const low = (t: string) => t.toLowerCase().replace(/\s+/g, ' ').trim();
  const typed = low(view.said.filter((s) => s.role === 'user').map((s) => s.text).join('\n'));
  return sentencesOf(text).some((s) => dangerousInstruction(s) && !typed.includes(low(s.replace(/^[^:“]{0,80}:\s*/, '')).replace(/[.。]$/, '')));
}
