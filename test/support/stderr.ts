import { vi } from 'vitest';

/**
 * Runs `fn` with everything this process writes to stderr (the text logger's lines included) also collected;
 * returns what `fn` returned and the text written. The writes still reach stderr.
 */
export async function withStderr<T>(fn: () => Promise<T>): Promise<{ value: T; stderr: string }> {
  const said: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    said.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write);
  try {
    return { value: await fn(), stderr: said.join('') };
  } finally {
    spy.mockRestore();
  }
}
