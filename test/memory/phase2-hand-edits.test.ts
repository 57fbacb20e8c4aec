/**
 * A bullet a person adds to MEMORY.md while phase 2 runs is kept (issue 10, item 9): phase 2 re-reads MEMORY.md
 * under the lock right before it writes and merges what changed meanwhile: added and reworded bullets win,
 * deleted ones stay deleted. The edit is made by the scripted model server while the model call is in flight.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/client.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { startMessagesServer, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

let server: MessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('phase 2 and a person editing MEMORY.md at the same time', () => {
  it('keeps a bullet added, a bullet reworded and a bullet deleted while the model call ran', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [
      raw('pitfall', 'Build with `-j4`: -j16 gets cc1plus OOM-killed.', 4),
      raw('fact', 'The API server listens on port 8081, not 8080.', 3),
      raw('procedure', 'Run `make lint` before committing; CI fails on lint errors.', 3),
    ]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const first = parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries;
    expect(first).toHaveLength(3);
    const port = first.find((e) => e.text.includes('8081'))!;
    const lint = first.find((e) => e.text.includes('make lint'))!;

    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('fact', 'Integration tests need `docker compose up db` first.', 3)]);
    server = await startMessagesServer([
      () => {
        // The person's edit lands while phase 2 waits for the model.
        const text = readFileSync(paths.memoryMd, 'utf8')
          .replace(port.text, 'The API server listens on port 9090 since the November move.')
          .split('\n')
          .filter((l) => !l.includes(lint.id))
          .join('\n')
          .replace('## Pitfalls\n', '## Pitfalls\n\n- Never run the migrations against the shared staging database.\n');
        writeFileSync(paths.memoryMd, text);
        return turn(
          toolUse('write_memory', {
            entries: [
              { kind: 'pitfall', text: 'Build with `-j4`: -j16 gets cc1plus OOM-killed.', sources: ['r1'], importance: 4 },
              { kind: 'fact', text: 'The API server listens on port 8081, not 8080.', sources: ['r1'], importance: 3 },
              { kind: 'procedure', text: 'Run `make lint` before committing; CI fails on lint errors.', sources: ['r1'], importance: 3 },
              { kind: 'fact', text: 'Integration tests need `docker compose up db` first.', sources: ['r2'], importance: 3 },
            ],
          }),
        );
      },
    ]);
    const client = createModelClient({ baseURL: server.url, env: {}, maxRetries: 0 });
    await consolidate({ paths, config: CONFIG, mode: 'model', client, model: 'claude-test' });
    const after = parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries;
    const texts = after.map((e) => e.text);
    expect(texts).toContain('Never run the migrations against the shared staging database.');
    expect(texts).toContain('The API server listens on port 9090 since the November move.');
    expect(texts.some((t) => t.includes('8081'))).toBe(false);
    expect(texts.some((t) => t.includes('make lint'))).toBe(false);
    expect(texts).toContain('Integration tests need `docker compose up db` first.');
    expect(after.find((e) => e.text.includes('9090'))!.edited).toBe(true);

    // The deletion holds on the next consolidation too (tombstoned), and the person's bullets stay.
    await writeRollout(paths, 'r3', '2026-11-03T10:00:00Z', [raw('fact', 'The docs build with `mkdocs build --strict`.', 2)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const later = parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries.map((e) => e.text);
    expect(later.some((t) => t.includes('make lint'))).toBe(false);
    expect(later).toContain('Never run the migrations against the shared staging database.');
    expect(later).toContain('The API server listens on port 9090 since the November move.');
  });
});
