/**
 * Issue 10, redaction misses of new-user trials 23 and 24: a secret name given an expression that wraps the literal
 * (`$password = ConvertTo-SecureString 'X' -AsPlainText`, `password = SecretStr("X")`), and names whose secret word
 * is the abbreviation `pw`. Beside them, the look-alikes that must stay: prompts, env var names, Playwright's `pw`,
 * and type annotations (`password: SecretStr`), which the prose rules took for a capitalised password.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { looksLikePassword } from '../../src/memory/redact-expression-literals.js';
import { expectGone, kept } from './redact-expect.js';

describe('a literal inside an expression assigned to a secret name', () => {
  const cases: Array<[string, string]> = [
    ['PowerShell cmdlet', `$password = ConvertTo-SecureString 'Kv8!mQ2zLp' -AsPlainText -Force`],
    ['PowerShell -String', `$adminPassword = ConvertTo-SecureString -String "Kv8!mQ2zLp" -AsPlainText -Force`],
    ['pydantic SecretStr', `    password = SecretStr("Kv8!mQ2zLp")`],
    ['typed pydantic field', `    db_password: SecretStr = SecretStr("Kv8!mQ2zLp")`],
    ['a default of getenv', `db_password = os.getenv("DB_PASSWORD", "Kv8!mQ2zLp")`],
    ['Rust String::from', `let api_token = String::from("Kv8mQ2zLp77x");`],
    ['a builder call', `final secret = Secret.fromString('Kv8!mQ2zLp');`],
    ['new with an argument', `const clientSecret = new SecretValue("Kv8!mQ2zLp")`],
    ['an object key further on the line', `const cfg = { host: "db", password: decrypt("Kv8!mQ2zLp") };`],
    ['Go with :=', `token := strings.TrimSpace("Kv8mQ2zLp77x")`],
  ];
  for (const [what, text] of cases) it(what, () => expectGone(text, /Kv8!?mQ2zLp(?:77x)?/.exec(text)![0]));

  it('the expression itself stays readable', () => {
    expect(redact(`$password = ConvertTo-SecureString 'Kv8!mQ2zLp' -AsPlainText -Force`)).toBe(
      `$password = ConvertTo-SecureString '[REDACTED:password]' -AsPlainText -Force`,
    );
    expect(redact(`password = SecretStr("Kv8!mQ2zLp")`)).toBe(`password = SecretStr("[REDACTED:password]")`);
  });

  it('prompts, names of variables and settings, algorithms and placeholders stay', () =>
    kept([
      `password = getpass.getpass("Password for deploy@ci: ")`,
      `password = input("Password (e.g. Abc12345!): ")`,
      `token = jwt.encode(payload, key, algorithm="HS256")`,
      `secret = os.environ.get("APP_SECRET", "changeme")`,
      `secret = settings.get("security.jwt.secret")`,
      `token = request.headers.get("x-auth-token")`,
      `token := os.Getenv("GITHUB_TOKEN")`,
      `password = bcrypt.hashpw(candidate, bcrypt.gensalt())`,
    ]));
});

describe('names whose secret word is `pw`', () => {
  const cases: Array<[string, string]> = [
    ['Go var (trial 24)', `var pw = "EditPw_Sec77!" // password`],
    ['Go :=', `pw := "EditPw_Sec77!"`],
    ['Python snake case', `db_pw = 'EditPw_Sec77!'`],
    ['camel case in an object', `const opts = { adminPw: "EditPw_Sec77!" }`],
    ['shell', `export SMTP_PW=EditPw_Sec77!`],
  ];
  for (const [what, text] of cases) it(what, () => expectGone(text, 'EditPw_Sec77'));

  it("Playwright's `pw` and words stay", () =>
    kept([
      `const pw = require('playwright');`,
      `import * as pw from "playwright"`,
      `pw = 'chromium'`,
      `const pw = page.waitForSelector('#login');`,
      `pw = page.locator("#row-42")`,
      `pwsh = "C:/Program Files/PowerShell/7/pwsh.exe"`,
    ]));
});

describe('type annotations after a secret word are not passwords', () => {
  it('capitalised type names stay', () =>
    kept([
      'password: SecretStr',
      'password: SecretStr = SecretStr("x")',
      'class Settings(BaseSettings):\n    password: SecretStr\n    token: AccessToken | None = None',
      'secret: SecretBytes',
    ]));

  it('a capitalised password after "is" still goes', () => expectGone('the password is Cielonublado now', 'Cielonublado'));
});

describe('looksLikePassword', () => {
  it('wants letters with a digit or sign, one word, 6+ characters', () => {
    expect(looksLikePassword('Kv8!mQ2zLp')).toBe(true);
    expect(looksLikePassword('hunter22')).toBe(true);
    for (const v of ['playwright', 'Kv8!', 'DB_PASSWORD', 'a.b.c', 'HS256', 'two words9', '12345678', '${TOKEN}']) expect(looksLikePassword(v), v).toBe(false);
  });
});
