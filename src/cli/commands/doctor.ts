import type { Command } from 'commander';

/** Registers `mnemara doctor` (being built; see the issue that owns this command). */
export function registerDoctorCommand(_program: Command): void {}
