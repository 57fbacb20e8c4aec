import { execa } from 'execa';

/** The pid of a process that has exited (a `true` that ran and was reaped): what a killed writer's record names. */
export async function deadPid(): Promise<number> {
  const child = execa('true');
  const pid = child.pid as number;
  await child;
  return pid;
}
