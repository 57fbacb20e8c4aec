/**
 * Streamed model text, redacted before anyone sees it. The SDK hands out text in small deltas; a secret the model
 * repeats (a token read from a file, a password in a command it suggests) may be cut across several of them,
 * where no redaction rule can see it whole. So deltas are held until a line is complete and are passed on line by
 * line, each run of complete lines redacted as one text; what is left when the reply ends is passed on then.
 */
export interface RedactedDeltas {
  /** Takes one delta from the stream; emits the complete lines it finishes, redacted. */
  push(delta: string): void;
  /** Emits what is held (the reply's last line), redacted; call when the reply ends or fails. */
  flush(): void;
}

/** A `RedactedDeltas` over `redact` (the session's redaction) that hands each redacted piece to `emit`. */
export function redactedDeltas(redact: (text: string) => string, emit: (delta: string) => void): RedactedDeltas {
  let held = '';
  const out = (text: string): void => {
    if (text !== '') emit(redact(text));
  };
  return {
    push(delta) {
      held += delta;
      const cut = held.lastIndexOf('\n') + 1;
      if (cut === 0) return;
      out(held.slice(0, cut));
      held = held.slice(cut);
    },
    flush() {
      out(held);
      held = '';
    },
  };
}
