import type { MnemaraConfig } from '../config/schema.js';
import type { OnProgress } from '../config/progress.js';
import type { Sandbox } from '../sandbox/types.js';

/** Step 4 (placeholder until the memory read path lands). */
export async function readMemoryBlock(_sandbox: Sandbox, _config: MnemaraConfig, _task: string): Promise<{ block: string | undefined; note?: string }> {
  return { block: undefined, note: 'no memory read path yet' };
}

/** Steps 7 and 8 (placeholder until the pipeline lands). */
export async function runPipelineOn(_dir: string, _config: MnemaraConfig, _onProgress: OnProgress): Promise<void> {
  throw new Error('memory pipeline not available yet');
}
