/**
 * Base of every error mnemara throws on purpose. `code` is stable (for `--json` output and exit codes);
 * `hint` says what to do about it, in one sentence, and the CLI prints it under the message.
 */
export class MnemaraError extends Error {
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}
