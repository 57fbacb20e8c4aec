import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerDoctorCommand } from '../../src/cli/commands/doctor.js';
import { registerLearnCommand } from '../../src/cli/commands/learn.js';
import { registerMemoryCommand } from '../../src/cli/commands/memory.js';
import { registerSandboxCommand } from '../../src/cli/commands/sandbox.js';

// `mnemara --help` lists each command by its summary; without one, commander prints the whole multi-paragraph
// description there, re-wrapped into ragged lines.
describe('mnemara --help', () => {
  it('lists memory, learn, sandbox and doctor in one short line each', () => {
    const program = new Command('mnemara');
    for (const register of [registerMemoryCommand, registerLearnCommand, registerSandboxCommand, registerDoctorCommand]) register(program);
    for (const cmd of program.commands) {
      expect(cmd.summary(), cmd.name()).toMatch(/^[^\n]{10,90}$/);
    }
    const listing = program.helpInformation({ error: false }).split('Commands:')[1] ?? '';
    const entries = listing.split('\n').filter((l) => /^ {2}\S/.test(l));
    for (const e of entries) expect(e.length, e).toBeLessThanOrEqual(120);
    expect(listing.split('\n').filter((l) => l.trim() !== '').length).toBeLessThanOrEqual(program.commands.length * 2 + 1);
  });
});
