/**
 * URLs under names that say secret: where a secret is fetched (a service-account key's `token_uri`) is public;
 * a URL that carries a credential is not. Used by `redact.ts`'s value rules.
 */

import { isSecretName } from './secret-names.js';

/** Query parameters that carry a credential though their name does not say so (SAS, signed URLs, OAuth codes). */
export const SECRET_QUERY_PARAM = /^(?:sig|signature|code|key|id_token|x-amz-(?:signature|credential|security-token)|x-goog-(?:signature|credential))$/i;

/**
 * Whether `value` is a plain http(s) URL: no userinfo (`https://user:pw@`, `https://TOKEN@`), no query or
 * fragment parameter that holds a credential (`?access_token=`, `&sig=`, `#id_token=`), and no path segment that
 * is a random token (a webhook's `…/hooks/T0K3nR4nd0m…`, 20+ characters with letters and digits). Such a URL
 * under a name that says secret (`token_uri`, `auth_provider_x509_cert_url`, `SECRET_LOCATION`) is where a
 * secret is fetched, public, not the secret.
 */
export function isPlainUrl(value: string): boolean {
  const m = /^https?:\/\/([^\s/?#]+)([^\s?#]*)(?:\?([^\s#]*))?(?:#(\S*))?$/i.exec(value);
  if (!m) return false;
  const [, authority = '', path = '', query = '', fragment = ''] = m;
  if (authority.includes('@')) return false;
  for (const param of `${query}&${fragment}`.split(/[&;]/)) {
    const name = param.split('=')[0] ?? '';
    if (name && (isSecretName(name) || SECRET_QUERY_PARAM.test(name))) return false;
  }
  return !path.split('/').some((seg) => seg.length >= 20 && /^[A-Za-z0-9_-]+$/.test(seg) && /[0-9]/.test(seg) && /[A-Za-z]/.test(seg));
}

/**
 * A key as a segment of a URL's path, after a version or key marker (`/v2/`, `/v3/`, `/key/`, `/apikey/`,
 * `/token/`): 20+ letters and digits with at least 4 of each and no word separators (a docs slug such as
 * `Getting-Started-2024` is not one), or 32+ hex digits. Group 1 is the URL up to the key.
 */
export const URL_PATH_KEY = /(https?:\/\/[^\s/?#"'`<>]+(?:\/[^\s/?#"'`<>]+)*?\/(?:v\d+|keys?|api-?keys?|tokens?|rpc)\/)((?=(?:[A-Za-z_]*\d){4})(?=(?:\d*[A-Za-z_]){4})[A-Za-z0-9_]{20,}|[0-9a-f]{32,})(?![A-Za-z0-9_-])/gi;
