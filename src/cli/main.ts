import { Command } from 'commander';
import { VERSION } from '../config/version.js';
import { registerConfigCommand } from './commands/config.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerLearnCommand } from './commands/learn.js';
import { registerMemoryCommand } from './commands/memory.js';
import { registerRunCommand } from './commands/run.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerSnapshotCommand } from './commands/snapshot.js';
import { EXIT, reportError } from './output.js';

/** Builds the `mnemara` command tree; each command lives in `commands/<name>.ts`. */
export function buildProgram(): Command {
  const program = new Command('mnemara')
    .description(
      'Memory that survives from one agent run to the next: Claude runs in a hardened Docker sandbox,\n' +
        'the workspace is kept as tarball snapshots, and lessons are consolidated into memories/MEMORY.md.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerRunCommand(program);
  registerSnapshotCommand(program);
  registerMemoryCommand(program);
  registerLearnCommand(program);
  registerSandboxCommand(program);
  registerDoctorCommand(program);
  registerConfigCommand(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    const e = err as { code?: string; exitCode?: number };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? EXIT.ok : EXIT.usage;
    }
    return reportError(err, argv.includes('--json'));
  }
}

process.exitCode = await main(process.argv);
