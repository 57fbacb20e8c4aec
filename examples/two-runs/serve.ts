/**
 * The demo's scripted model as a standing server, for following the README's tour without an API key:
 *   npx tsx examples/two-runs/serve.ts        # prints the two export lines, then serves until Ctrl-C
 * SCRIPTED_FIX plays run 1 (fix the bug), SCRIPTED_DAYS run 2 (add the days unit). It is NOT Claude: a fixed
 * policy (scripted-model.ts) that reacts to the real tool results and to the real system prompt.
 */
import { startMessagesServer } from '../../test/support/messages-server.js';
import { ADD_DAYS, FIX_BUG, policy } from './scripted-model.js';

const fix = await startMessagesServer(policy(FIX_BUG));
const days = await startMessagesServer(policy(ADD_DAYS));
process.stdout.write(`export SCRIPTED_FIX=${fix.url} SCRIPTED_DAYS=${days.url}\n`);
process.stderr.write('scripted model serving (not Claude); Ctrl-C to stop\n');
const stop = async (): Promise<void> => {
  await Promise.all([fix.close(), days.close()]);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
