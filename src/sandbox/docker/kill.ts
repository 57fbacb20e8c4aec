import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { delay } from './delay.js';

const log = logger('sandbox');

/** In-image killer of a tagged process tree (sandbox-image/bin/mnemara-kill). */
const KILLER = '/opt/mnemara/bin/mnemara-kill';

/**
 * SIGKILLs every process of the tagged tree. The killer uses bash builtins only, but starting it still needs one
 * free process slot, which a fork bomb may hold: retry for a few seconds before giving up (logged).
 */
export async function killTree(container: Docker.Container, token: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const exec = await container.exec({ Cmd: [KILLER, token], AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: false, Tty: false })) as Readable;
      stream.resume();
      await new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
        stream.once('error', () => resolve());
      });
      const info = await exec.inspect();
      if (info.ExitCode === 0) return;
      log.debug({ exitCode: info.ExitCode, attempt }, 'mnemara-kill did not finish; retrying');
    } catch (err) {
      log.debug({ err, attempt }, 'could not start mnemara-kill; retrying');
    }
    await delay(100);
  }
  log.error({ token }, 'could not kill the timed-out process tree');
}

