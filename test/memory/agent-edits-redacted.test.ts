/**
 * Trial 23 F9: an edit of MEMORY.md that does not win is reported in a warning (stderr, CI logs) with its reason;
 * the reason quoted the old entry unredacted, so a repository's MEMORY.md with a token and a password printed both
 * in clear. Every text of a rejected edit, the quoted old entry included, is redacted.
 */
import { describe, expect, it } from 'vitest';
import { judgeAgentEdits } from '../../src/memory/phase2/agent-proposals.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const TOKEN = 'ghp_FAKErealLookingTokenAbcdefghijklmnop01';
const start = [
  '# Memory',
  '',
  '## Procedures',
  `- Deploy with \`DEPLOY_TOKEN=${TOKEN} ./deploy.sh\`. <!-- id:m-11111111 src:r1 imp:4 -->`,
  '- The staging db password is HostileFAKE_9911. <!-- id:m-33333333 src:r1 imp:4 -->',
  '',
].join('\n');

describe('rejected edits of MEMORY.md', () => {
  it('never carry a secret of the entries they name', () => {
    const end = start
      .replace(`Deploy with \`DEPLOY_TOKEN=${TOKEN} ./deploy.sh\`.`, 'Deploy with `./deploy.sh --prod`.')
      .replace('- The staging db password is HostileFAKE_9911. <!-- id:m-33333333 src:r1 imp:4 -->\n', '');
    const view = viewRollout(new TranscriptBuilder('tidy the notes').bash('ls', 0, 'deploy.sh').end(), 'r2');
    const judged = judgeAgentEdits({ rolloutId: 'r2', start, end }, view, []);
    expect(judged.rejected.length).toBe(2);
    const said = JSON.stringify(judged.rejected);
    expect(said).not.toContain(TOKEN);
    expect(said).not.toContain('HostileFAKE_9911');
    expect(said).toContain('[REDACTED:');
  });
});
