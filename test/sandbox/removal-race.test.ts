/**
 * Removal is idempotent (issue 10, item 5): when something else is already removing the container, Docker
 * answers 409 "removal already in progress"; close(), exit cleanup and `sandbox prune` must count that (and 404)
 * as success. Real engine, containers scoped by this test's session labels.
 */
import { describe, expect, it } from 'vitest';
import { dockerClient } from '../../src/sandbox/index.js';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { pruneSandboxes } from '../../src/sandbox/docker/prune.js';
import { removeContainer } from '../../src/sandbox/docker/remove.js';
import { containersOf, crashedSandbox } from './hold.js';

describe('container removal under races', () => {
  it('close() succeeds while other callers remove the same container (404 and 409 are success)', async () => {
    const failures: unknown[] = [];
    for (let round = 0; round < 4; round++) {
      const session = `rm-race-${process.pid}-${round}`;
      const sb = await DockerSandbox.create({ sessionId: session });
      const raw = dockerClient().getContainer(sb.id);
      // Several direct removals in flight at once: the engine answers the late ones with 409 or 404.
      const others = Array.from({ length: 3 }, () => raw.remove({ force: true, v: true }).catch((e: unknown) => e));
      const closed = await sb.close().then(() => null, (e: unknown) => e);
      const seen = await Promise.all(others);
      if (closed) failures.push(closed);
      expect(await containersOf(session)).toEqual([]);
      // The race is real: at least one of the direct calls lost (404/409) in some round.
      if (round === 0) expect(seen.some((e) => e instanceof Error) || closed === null).toBe(true);
    }
    expect(failures).toEqual([]);
  });

  it('removeContainer treats a container already gone as removed, and reports whether it removed it', async () => {
    const sb = await DockerSandbox.create({ sessionId: `rm-gone-${process.pid}` });
    const raw = dockerClient().getContainer(sb.id);
    expect(await removeContainer(raw)).toBe(true);
    expect(await removeContainer(raw)).toBe(false);
    await expect(sb.close()).resolves.toBeUndefined();
  });

  it('two concurrent prunes of the same leftovers both succeed, with nothing failed', async () => {
    const session = `rm-prune-${process.pid}`;
    await Promise.all([crashedSandbox(session), crashedSandbox(session), crashedSandbox(session)]);
    const [a, b] = await Promise.all([pruneSandboxes({ sessionId: session, force: true }), pruneSandboxes({ sessionId: session, force: true })]);
    expect([...a.failed, ...b.failed]).toEqual([]);
    expect(await containersOf(session)).toEqual([]);
  });
});
