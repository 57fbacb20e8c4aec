import type { Extraction } from '../types.js';

/**
 * Phase 1 of a rollout whose transcript holds nothing at all (0 bytes, or only blank lines): the run's record
 * was lost before its first line was written (the twelfth trial: the disk filled right after the restore). No
 * later attempt can read more, so this is the rollout's account, not an error: no raw memories, and a rollout
 * summary that says the transcript is empty. Without it the rollout stayed pending for ever and every `recover`
 * tried again and moved the head. The time comes from the rollout id (`YYYYMMDDTHHMMSSmmmZ-…`, DESIGN.md), else ''.
 * Pure.
 */
export function emptyTranscriptExtraction(rolloutId: string, source: string, version: string): Extraction {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/.exec(rolloutId);
  const time = m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` : '';
  return {
    meta: { rolloutId, time, outcome: 'unknown', source, producer: 'deterministic', promptVersion: version },
    summary: {
      task: '(unknown: the transcript is empty)',
      tried: [],
      worked: [],
      outcome: `unknown: ${source} holds no records (the run's record was lost before its first line, e.g. the disk was full); nothing to learn`,
      filesChanged: [],
    },
    memories: [],
  };
}
