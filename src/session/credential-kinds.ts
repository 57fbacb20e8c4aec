/**
 * Whether a file's content is a credential file, by content alone (a name says nothing: `gcp.json`, `key`,
 * `creds`). A credential file is one whose purpose is to hold a credential, so the whole content is checked, not
 * a line: a test or a README that quotes a key inside other text is code, not a credential file, and redaction
 * (`redact.ts`) deals with it. Formats: PEM (RFC 7468), GCP service-account JSON, AWS shared credentials (INI),
 * `.netrc` (ftp(1)), `.pgpass` (PostgreSQL docs, "The Password File"), Docker `config.json`, kubeconfig,
 * `.git-credentials` (git-credential-store(1)).
 */

/** Non-blank lines that are not comments (`#`, `;`). */
const meaningful = (text: string): string[] => text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !/^[#;]/.test(l));

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The kind of credential file `text` is (`'PEM private key'`, `'GCP service-account key'`, …), or `null`.
 * Pure; never throws.
 */
export function classifyCredentialFile(text: string): string | null {
  const lines = meaningful(text);
  if (lines.length === 0) return null;
  // PEM: the file is PEM blocks (a key, maybe with its certificates) and nothing else.
  if (/^-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/m.test(text) && lines.every((l) => /^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(l) || /^[A-Za-z0-9+/=]+$/.test(l) || /^[A-Za-z-]+: /.test(l))) {
    return 'PEM private key';
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const doc = json(trimmed) as Record<string, unknown> | undefined;
    if (doc && typeof doc === 'object') {
      if (typeof doc.private_key === 'string' && /PRIVATE KEY/.test(doc.private_key)) return 'GCP service-account key';
      const auths = doc.auths as Record<string, Record<string, unknown>> | undefined;
      if (auths && typeof auths === 'object' && Object.values(auths).some((a) => a && typeof a === 'object' && (typeof a.auth === 'string' && a.auth.length > 0 || typeof a.identitytoken === 'string'))) {
        return 'Docker config with registry auths';
      }
    }
    return null;
  }
  if (lines.some((l) => /^aws_secret_access_key\s*=\s*\S/.test(l)) && lines.every((l) => /^\[[^\]]+\]$/.test(l) || /^[a-z_0-9]+\s*=/.test(l))) {
    return 'AWS credentials file';
  }
  // .netrc: only machine/default/login/password/account/macdef tokens, with a password.
  const words = lines.join(' ').split(/\s+/);
  if (/^(machine|default)$/.test(words[0]!) && words.includes('password') && lines.every((l) => /^(machine|default|login|password|account|port)(\s|$)/.test(l))) {
    return '.netrc';
  }
  // .pgpass: every line host:port:database:user:password.
  if (lines.every((l) => /^[^:]+:(\d+|\*):[^:]+:[^:]+:.+$/.test(l))) return '.pgpass';
  if (/^apiVersion:\s*v1$/m.test(text) && /^kind:\s*Config$/m.test(text) && /^\s*(client-key-data|token):\s*\S/m.test(text)) return 'kubeconfig with credentials';
  if (lines.every((l) => /^https?:\/\/[^:/@\s]+:[^@\s]+@[^\s]+$/.test(l))) return '.git-credentials';
  return null;
}
