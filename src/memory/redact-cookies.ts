/**
 * Session cookies in a `Cookie:` or `Set-Cookie:` header and in curl's `-b`/`--cookie` argument (twelfth trial:
 * `echo 'Cookie: session=…; theme=dark'` kept the session). A cookie whose name says it holds a session or a
 * credential (`session`, `sid`, `PHPSESSID`, `connect.sid`, `auth…`, `…token`, `jwt`, `remember_…`) loses its
 * value; `theme=dark` and other cookies stay.
 */
import { remember } from './redact-remember.js';

/** The cookie list of one header or curl argument: group 1 up to the list, group 2 the list. */
const COOKIE_LIST = /((?:\b(?:Set-)?Cookie:[ \t]*|(?:^|\s)(?:-b|--cookie)[ \t]+["']?))([^"'\r\n]+)/gi;

/** A cookie name that says it holds a session or a credential. */
const SESSION_NAME = /^(?:.*(?:sess|sid|auth|token|jwt|remember|login|credential).*)$/i;

/** One `name=value` pair of a cookie list. */
const PAIR = /(^|;[ \t]*)([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=([^;\s]+)/g;

/** `text` with the values of session and credential cookies replaced by `marker`. Pure but for `remember`. */
export function redactCookies(text: string, marker: string): string {
  if (!/cookie|-b\s/i.test(text)) return text;
  return text.replace(COOKIE_LIST, (m, head: string, list: string) =>
    head +
    list.replace(PAIR, (p, sep: string, name: string, value: string) => {
      if (!SESSION_NAME.test(name) || value.length < 8 || /^\[REDACTED:/.test(value) || /^[$<{]/.test(value)) return p;
      remember(value);
      return `${sep}${name}=${marker}`;
    }),
  );
}
