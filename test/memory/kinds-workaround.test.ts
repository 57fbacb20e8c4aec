import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { envSetupBefore } from '../../src/memory/phase2/workaround.js';

function cand(text: string, order: number, kind: Candidate['kind'] = 'pitfall'): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 4, at: `2026-04-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

// Issue 12 kind 1 (heldout-h round 13): a later run said in its own language that the workaround is no longer
// needed; the structure says it too — the command that failed now passed bare, without the setup.
describe('an environment workaround a newer run did without is stale', () => {
  const pitfall = cand(
    'In this environment `go test ./...` failed: “go: go.mod requires go >= 1.23 (running go 1.21)”. What worked: `export GOTOOLCHAIN=local PATH=/opt/go1.23/bin:$PATH && go test ./...`.',
    1,
  );

  it('reads the setup in front of the command: exports and inline assignments only', () => {
    expect(envSetupBefore('export GOTOOLCHAIN=local PATH=/opt/go1.23/bin:$PATH && go test ./...', 'go test ./...')).toEqual(['GOTOOLCHAIN=local', 'PATH=/opt/go1.23/bin:$PATH']);
    expect(envSetupBefore('CGO_ENABLED=0 go test ./...', 'go test ./...')).toEqual(['CGO_ENABLED=0']);
    expect(envSetupBefore('cp .env.example .env && go test ./...', 'go test ./...')).toBeUndefined();
    expect(envSetupBefore('go test ./...', 'go test ./...')).toBeUndefined();
  });

  it('retires it when a newer run passed the bare command and never set the variables', () => {
    const r = dropSuperseded([pitfall], [{ order: 0, passed: ['cd /workspace && go test ./...'], ran: ['go vet ./...', 'cd /workspace && go test ./...'] }]);
    expect(r.superseded.map((s) => s.stale)).toEqual([pitfall]);
    expect(r.kept).toEqual([]);
  });

  it('keeps it when the newer run set the variable itself, failed bare, or is older', () => {
    const exported = [{ order: 0, passed: ['go test ./...'], ran: ['export PATH=/opt/go1.23/bin:$PATH', 'go test ./...'] }];
    expect(dropSuperseded([pitfall], exported).kept).toEqual([pitfall]);
    expect(dropSuperseded([pitfall], [{ order: 0, passed: ['go build ./...'], ran: ['go test ./...', 'go build ./...'] }]).kept).toEqual([pitfall]);
    expect(dropSuperseded([pitfall], [{ order: 2, passed: ['go test ./...'], ran: ['go test ./...'] }]).kept).toEqual([pitfall]);
  });

  it('keeps a fix that wrote into the workspace: the snapshot carries it, a bare success proves nothing', () => {
    const written = cand('In this environment `go test ./...` failed (exit 1). What worked: `cp config/dev.example.yaml config/dev.yaml && go test ./...`.', 1);
    expect(dropSuperseded([written], [{ order: 0, passed: ['go test ./...'], ran: ['go test ./...'] }]).kept).toEqual([written]);
  });
});
