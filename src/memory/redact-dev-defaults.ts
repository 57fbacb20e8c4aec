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

/** Whether `value` is a documented local development default rather than a secret. */
export function isDevDefault(value: string): boolean {
  return DEV_DEFAULTS.has(value.trim().replace(/^["']|["']$/g, '').toLowerCase());
}
