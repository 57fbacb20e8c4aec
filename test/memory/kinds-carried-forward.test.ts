import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { closeFinishedTasks, type RolloutOutcome } from '../../src/memory/phase2/task-state.js';

function cand(text: string, order: number, kind: Candidate['kind']): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 4, at: `2026-03-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

function outcome(order: number, task: string, result: string): RolloutOutcome {
  return { rolloutId: `r${order}`, order, task, outcome: result, passed: [], exited0: [] };
}

// Issue 12 item 3 (heldout-h round 13): a newer run took up the same unfinished work and did not finish it
// either; its own unfinished-work entry is the state now, the older "written but not verified" one has passed.
describe('unfinished work carried forward by a newer unfinished run', () => {
  const older = cand(
    'Unfinished (the agent stopped on purpose): Behebe den Rundungsfehler in `billing/invoice_totals.py` und zeige, dass pytest grün ist. Files changed so far: billing/invoice_totals.py. Findings: “The fix is written but not verified: pytest cannot import psycopg here.”',
    1,
    'task_state',
  );
  const newer = cand(
    'Unfinished (the agent stopped on purpose): psycopg ist jetzt installiert; prüfe den Fix in `billing/invoice_totals.py` und lass auch die Integrationstests laufen. Unresolved: `pytest tests/integration` failed: “connection refused”.',
    0,
    'task_state',
  );

  it('drops the older entry and keeps the newer one', () => {
    const r = closeFinishedTasks([older, newer], [outcome(0, 'psycopg ist jetzt installiert; prüfe den Fix in `billing/invoice_totals.py` und lass auch die Integrationstests laufen.', 'error')]);
    expect(r.kept).toEqual([newer]);
    expect(r.closed).toEqual([older]);
  });

  it('keeps the older entry when the newer unfinished run did other work, or left no unfinished-work entry', () => {
    const other = cand('Unfinished (limit): Füge `reports/export_csv.py` hinzu. Files changed so far: reports/export_csv.py.', 0, 'task_state');
    const otherTask = outcome(0, 'Füge einen CSV-Export in `reports/export_csv.py` hinzu.', 'error');
    expect(closeFinishedTasks([older, other], [otherTask]).kept).toEqual([older, other]);
    const sameTask = outcome(0, 'prüfe den Fix in `billing/invoice_totals.py`', 'error');
    expect(closeFinishedTasks([older], [sameTask]).kept).toEqual([older]);
  });
});
