/**
 * The memory layout's redaction inside the sandbox before a workspace snapshot, with a lineage's history under
 * `sessions/` (issue 15: cost follows the change): every file read (a fresh copy of a host directory) against only
 * what the run changed (a tree restored from a snapshot), on the same real Docker sandbox, alternating which goes
 * first. Alone: `npx tsx bench/support/redact-notes.ts [runs] [transcripts] [KiB each]` (defaults 5, 100, 200:
 * a lineage of 100 runs whose transcripts average 200 KiB; the run wrote one note and its own transcript).
 */
import { DockerSandbox } from '../../src/sandbox/index.js';
import { sandboxClock } from '../../src/session/credential-files.js';
import { redactLayoutInSandbox } from '../../src/session/redact-notes.js';
import { median, timeMs } from './stats.js';

const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };

async function main(): Promise<void> {
  const [runs = 5, transcripts = 100, kib = 200] = process.argv.slice(2).map(Number);
  const sandbox = await DockerSandbox.create({ sessionId: `bench-redact-notes-${process.pid}` });
  try {
    // Transcript-like lines: JSON with prose, paths and ids, nothing redaction changes.
    const line = '{"type":"tool_result","content":"src/app/main.ts:42 passed in 318 ms; see docs/notes.md for the plan"}\\n';
    await sandbox.exec(['bash', '-c', `mkdir -p memories sessions && l='${line}' && for i in $(seq 1 ${transcripts}); do yes "$l" | head -c ${kib * 1024} > sessions/r$i.jsonl; done && printf '# Memory\\n' > memories/MEMORY.md`]);
    await sandbox.exec(['sleep', '0.05']);
    const clock = (await sandboxClock(sandbox))!;
    await sandbox.exec(['bash', '-c', 'sleep 0.05; printf "a note\\n" > memories/notes.md; yes "{}" | head -c 100000 > sessions/new.jsonl']);
    const whole: number[] = [];
    const changed: number[] = [];
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? ['whole', 'changed'] : ['changed', 'whole'];
      for (const which of order) {
        const ms = await timeMs(() => redactLayoutInSandbox(sandbox, layout, which === 'changed' ? { since: clock } : {}));
        (which === 'whole' ? whole : changed).push(ms);
      }
    }
    const w = median(whole);
    const c = median(changed);
    console.log(`sessions/: ${transcripts} transcripts × ${kib} KiB; medians of ${runs}`);
    console.log(`every file read: ${Math.round(w)} ms; only the changed files: ${Math.round(c)} ms (${(c / w).toFixed(2)}×)`);
  } finally {
    await sandbox.close();
  }
}

await main();
