/** What local development setups document, which redaction leaves in place (`redact.ts`). */

/**
 * Passwords that local development setups document (docker-compose files, READMEs, framework defaults): not
 * secrets, so they are left in place, and no "secrets present" pitfall is made of them. Compared whole and
 * case-insensitively with the value.
 */
const DEV_DEFAULTS = new Set([
  'pass', 'password', 'postgres', 'root', 'secret', 'example', 'changeme', 'admin', 'test', 'testing', 'dev',
  'development', 'mysql', 'redis', 'guest', 'user', 'default', 'local', 'minioadmin', 'docker', 'rabbitmq', 'keycloak',
]);
/** Hosts of a local development service. */
export const LOCAL_HOST = /^(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host\.docker\.internal|db|postgres|mysql|redis|database)(?::\d+)?(?:[/?#]|$)/i;

/**
 * A password word joined to a word that says development (`devpass`, `dev_password`, `testpw`, `localsecret`,
 * `password-dev`): what READMEs and compose files write for a local service (tenth new-user trial, low:
 * `redis://:devpass@localhost` was redacted).
 */
const DEV_WORD = /^(?:(?:dev|test|local|demo)[-_]?(?:pass(?:word)?|pw|pwd|secret)|(?:pass(?:word)?|secret)[-_]?(?:dev|test|local|demo))$/;

/** Whether `value` is a documented local development default rather than a secret. */
export function isDevDefault(value: string): boolean {
  const v = value.trim().replace(/^["']|["']$/g, '').toLowerCase();
  return DEV_DEFAULTS.has(v) || DEV_WORD.test(v);
}
