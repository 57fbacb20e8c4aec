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
 * `/token/`): 16+ letters and digits with at least 4 of each and no word separators (a docs slug such as
 * `Getting-Started-2024` is not one; the caller also leaves words, `isWordy`), or 32+ hex digits. Group 1 is the
 * URL up to the key, group 2 the key. 16, not 20: a key of 19 after `/v2/` was kept (blind corpus p).
 */
export const URL_PATH_KEY = /((?:https?|wss?):\/\/[^\s/?#"'`<>]+(?:\/[^\s/?#"'`<>]+)*?\/(?:v\d+|keys?|api-?keys?|tokens?|rpc)\/)((?=(?:[A-Za-z_]*\d){4})(?=(?:\d*[A-Za-z_]){4})[A-Za-z0-9_]{16,}|[0-9a-f]{32,})(?![A-Za-z0-9_-])/gi;

/** A URL of a scheme that carries API and node traffic, up to the end of its path (no query or fragment). */
export const URL_WITH_PATH = /\b(?:https?|wss?):\/\/[^\s/?#"'`<>]+\/[^\s?#"'`<>]*/gi;

/** Path segments after which a long id names a public object (a commit, a document, a release asset), not a key. */
const OBJECT_SEGMENT = /^(?:commits?|blob|blobs|tree|raw|d|files?|document|spreadsheets|presentation|folders|issues|pull|releases?|tags?|download|archive|objects|ipfs|ipns|sha|runs|jobs|artifacts|attachments|uploads|images|assets|static|packages|gist|watch|video|playlist|posts?)$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether the path segment `seg` (after the segment `prev`) is a key: RPC and API providers put one straight after
 * the host (`https://name.node-host.example/<key>/`) or after a chain's name (`…/arbitrum/<64 hex>`), not only after
 * a `/v2/` (URL_PATH_KEY). A key is 20 to 256 characters of `[A-Za-z0-9_-]`: hex of 32 or more digits (not 40, a git
 * commit), or letters and digits mixed (4 or more of each) that are not words (a slug such as
 * `release-notes-2024-01-01` is). A UUID, and any id after a segment that names a public object (`/commit/`, `/d/`,
 * `/releases/`), is not.
 */
export function isPathKey(seg: string, prev: string, isWordy: (value: string) => boolean): boolean {
  if (seg.length < 20 || seg.length > 256 || !/^[A-Za-z0-9_-]+$/.test(seg) || OBJECT_SEGMENT.test(prev) || UUID.test(seg)) return false;
  if (/^[0-9a-f]+$/i.test(seg)) return seg.length >= 32 && seg.length !== 40;
  const body = seg.replace(/[-_]/g, '');
  const digits = body.replace(/[^0-9]/g, '').length;
  return body.length >= 20 && digits >= 4 && body.length - digits >= 4 && !isWordy(seg);
}

/** `url` (a URL_WITH_PATH match) with each path segment that is a key (`isPathKey`) replaced by `mark`. Pure. */
export function redactPathKeys(url: string, mark: string, isWordy: (value: string) => boolean): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const segments = url.slice(start + 1).split('/');
  let changed = false;
  const out = segments.map((seg, i) => {
    if (!isPathKey(seg, i === 0 ? '' : (segments[i - 1] ?? ''), isWordy)) return seg;
    changed = true;
    return mark;
  });
  return changed ? `${url.slice(0, start + 1)}${out.join('/')}` : url;
}
