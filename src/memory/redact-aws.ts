/**
 * An AWS secret access key written beside its key id with no name to say what it is: `AKIA… wJalr…` on one line
 * (the CSV the console downloads, a note, `aws configure` answers echoed back; eleventh trial: the id was redacted
 * and the secret stayed). Alone, 40 base64 characters could be anything; on the line of an access key id they are
 * its secret. Source of the shape: AWS's documented access key pairs (20-character id, 40-character secret of
 * letters, digits, `/` and `+`).
 */

/** The marker the id's shape rule left (redact.ts), which places the line. */
const ID_MARKER = '[REDACTED:aws_access_key_id]';

/** 40 characters of the secret's alphabet, not part of a longer base64 run. */
const SECRET_RUN = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/** Upper case, lower case and a digit or `/`/`+`: a 40-hex digest (a git id beside the key id) is not one. */
function isSecretKeyShape(run: string): boolean {
  return /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9/+]/.test(run);
}

/**
 * `text` with every secret-key-shaped run on a line that holds `ID_MARKER` replaced by `marker`; `onRedact` gets
 * each value replaced. Runs after the token shapes (the id must already be a marker). Pure apart from `onRedact`;
 * idempotent.
 */
export function redactAwsSecretBesideId(text: string, marker: string, onRedact: (value: string) => void): string {
  if (!text.includes(ID_MARKER)) return text;
  return text
    .split('\n')
    .map((line) =>
      line.includes(ID_MARKER)
        ? line.replace(SECRET_RUN, (run) => {
            if (!isSecretKeyShape(run)) return run;
            onRedact(run);
            return marker;
          })
        : line,
    )
    .join('\n');
}
