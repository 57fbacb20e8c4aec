import { Command } from 'commander';
import { VERSION } from '../config/version.js';
import { registerApplyCommand } from './commands/apply.js';
import { registerConfigCommand } from './commands/config.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerGcCommand } from './commands/gc.js';
import { registerLearnCommand } from './commands/learn.js';
import { registerLineageCommand } from './commands/lineage.js';
import { registerMemoryCommand } from './commands/memory.js';
import { registerRecoverCommand } from './commands/recover.js';
import { registerRunCommand } from './commands/run.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerSnapshotCommand } from './commands/snapshot.js';
import { MnemaraError } from '../config/errors.js';
import { EXIT, reportError } from './output.js';

/**
 * Builds the `mnemara` command tree; each command lives in `commands/<name>.ts`. With `json`, commander's own
 * usage messages are held back so that the error reaches stdout as the same `{error}` document as any other.
 */
export function buildProgram(json = false): Command {
  const program = new Command('mnemara')
    .description(
      'Memory that survives from one agent run to the next: Claude runs in a hardened Docker sandbox, ' +
        'the workspace is kept as tarball snapshots, and lessons are consolidated into memories/MEMORY.md.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Set before the commands are added, so that every subcommand inherits it.
  if (json) program.configureOutput({ writeErr: () => {} });
  registerRunCommand(program);
  registerSnapshotCommand(program);
  registerApplyCommand(program);
  registerLineageCommand(program);
  registerRecoverCommand(program);
  registerMemoryCommand(program);
  registerLearnCommand(program);
  registerSandboxCommand(program);
  registerDoctorCommand(program);
  registerGcCommand(program);
  registerConfigCommand(program);
  return program;
}

/** The command's words of `argv` (`recover`, `snapshot create`): the known subcommands, options left out. */
function commandWords(program: Command, argv: string[]): string | undefined {
  const words: string[] = [];
  let at: Command = program;
  for (const arg of argv.slice(2)) {
    if (arg.startsWith('-')) continue;
    const sub = at.commands.find((c) => c.name() === arg);
    if (!sub) break;
    words.push(arg);
    at = sub;
  }
  return words.length ? words.join(' ') : undefined;
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const program = buildProgram(json);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.ok;
      // Without --json commander has already printed its message and the usage hint.
      if (!json) return EXIT.usage;
      const message = (e.message ?? 'invalid usage').replace(/^error: /, '');
      return reportError(new MnemaraError('USAGE', message, { hint: 'run with --help for usage' }), true);
    }
    return reportError(err, json, commandWords(program, argv));
  }
}

// A reader that stops early (`mnemara --help | head`, `mnemara run … | head`) closes the pipe: not an error of ours,
// and no reason to stop. What would have been printed is dropped; the command goes on to its end: exiting here
// removed a run's sandbox before its snapshot and lost the agent's work, exit 0 (trial 25).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}

process.exitCode = await main(process.argv);
