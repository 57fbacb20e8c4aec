import { describe, expect, it } from 'vitest';
import { statesLastingRule } from '../../src/memory/phase1/deterministic/durable.js';
import { failedTestNames } from '../../src/memory/phase1/deterministic/flaky.js';
import { staleTerms } from '../../src/memory/phase2/supersede.js';

// Issue 12 item 3, "and their equivalents in other languages": lasting rules, one-off instructions and
// stated migrations in Dutch, Polish, Italian, Portuguese and Russian, beside the languages already covered.
describe('lasting rules and one-off instructions in more languages', () => {
  const lasting = [
    'Voortaan altijd `pnpm lint` draaien voor een commit.',
    'Od teraz zawsze uruchamiaj `cargo clippy -- -D warnings` przed commitem.',
    "D'ora in poi usa sempre `ruff format`.",
    'Neste repositório usamos sempre `mvn -q verify` antes do push.',
    'Отныне всегда запускай `mvn verify` перед коммитом.',
    'Zawsze uruchamiaj testy przed pushem.',
    // `\b` sees no word edge before an accented capital: "À partir de maintenant" was missed.
    'À partir de maintenant, lance toujours `bundle exec rubocop -a` avant de terminer.',
    'Às vezes não; a partir de agora sempre `npm run lint`.',
  ];
  const oneOff = ['Dit keer niet committen.', 'Tym razem nie commituj.', 'Per ora non fare push.', 'Por enquanto não faça push.', 'На этот раз не коммить.'];
  for (const t of lasting) it(`lasting: ${t}`, () => expect(statesLastingRule(t)).toBe(true));
  for (const t of oneOff) it(`one-off: ${t}`, () => expect(statesLastingRule(t)).toBe(false));
});

describe('stated migrations in more languages name what they retire', () => {
  const cases: Array<[string, Array<{ term: string; replacement?: string }>]> = [
    ['Мы перешли с Java 17 на Java 21, toolchains.xml больше не нужен.', [{ term: 'Java 17', replacement: 'Java 21' }, { term: 'toolchains.xml' }]],
    ['We zijn overgestapt van Jest naar Vitest.', [{ term: 'Jest', replacement: 'Vitest' }]],
    ['Przeszliśmy z npm na pnpm.', [{ term: 'npm', replacement: 'pnpm' }]],
    ['Siamo migrati da psycopg2 a psycopg.', [{ term: 'psycopg2', replacement: 'psycopg' }]],
  ];
  for (const [text, want] of cases) it(text, () => expect(staleTerms(text)).toEqual(want));
  it('a bare version number is never a term', () => expect(staleTerms('Java 17 больше не нужен')).toEqual([]));
});

// Issue 12 item 3, flaky tests "become a lesson that names the test": the name comes from the runner's report.
describe('failing test names from more runners', () => {
  it('dotnet test, ExUnit, PHPUnit', () => {
    expect(failedTestNames('  Failed Mossbank.Tests.Caching.StatementCacheTests.EntryExpiresAfterTtl [205 ms]\n  Error Message:')).toEqual(['Mossbank.Tests.Caching.StatementCacheTests.EntryExpiresAfterTtl']);
    expect(failedTestNames('  1) test resets after the window (Petrel.RateLimiterTest)\n     test/petrel/rate_limiter_test.exs:42\n')).toEqual(['Petrel.RateLimiterTest: resets after the window']);
    expect(failedTestNames('1) Tests\\Unit\\InvoiceTest::testTotals\nFailed asserting that 3 matches expected 4.')).toEqual(['Tests\\Unit\\InvoiceTest::testTotals']);
  });
  it('a build line that says "Failed" is no test name', () => {
    expect(failedTestNames('Failed to install browsers\nBuild FAILED.\nFailed!  - Failed:     1, Passed:   118')).toEqual([]);
  });
});

// Issue 12 item 3: a check that failed and its own fixer passing is a dev loop (the code changed), for the
// formatters of more ecosystems: dotnet, Gradle and Maven plugins, rubocop -a, mix.
describe('format checks and their fixers in more ecosystems', async () => {
  const { jobOf, checksOnly } = await import('../../src/memory/phase1/command-job.js');
  const seg = (c: string) => ({ program: c.split(' ')[0]!, args: c.split(' ').slice(1) });
  it('the job and which side checks', () => {
    for (const [check, fix] of [
      ['dotnet format --verify-no-changes', 'dotnet format'],
      ['./gradlew ktlintCheck', './gradlew ktlintFormat'],
      ['mvn spotless:check', 'mvn spotless:apply'],
      ['mix format --check-formatted', 'mix format'],
    ]) {
      expect(jobOf(seg(check!)), check).toBe('format');
      expect(jobOf(seg(fix!)), fix).toBe('format');
      expect(checksOnly(seg(check!)), check).toBe(true);
      expect(checksOnly(seg(fix!)), fix).toBe(false);
    }
    expect(checksOnly(seg('rubocop -a app/'))).toBe(false);
    expect(checksOnly(seg('rubocop app/'))).toBe(true);
    expect(jobOf(seg('./gradlew test'))).toBeUndefined();
  });
});

// The same kinds in nine more languages (sv, da/no, cs, uk, tr, id, vi, el, hi): word lists, tested per language.
describe('lasting rules, one-off instructions and migrations in nine more languages', () => {
  const lasting = [
    'Från och med nu kör alltid `swift format` innan du är klar.',
    'Fremover bruker vi alltid `cargo nextest` i dette repo.',
    'Od teď vždy spouštěj `make lint` před commitem.',
    'Відтепер завжди запускай `pytest -q` перед комітом.',
    'Bundan sonra her zaman `go vet ./...` çalıştır.',
    'Mulai sekarang selalu jalankan `deno fmt` sebelum selesai.',
    'Từ giờ luôn chạy `go test -race ./...` trước khi commit.',
    'Από τώρα και στο εξής τρέχε πάντα `sbt scalafmtCheckAll`.',
    'अब से हमेशा `pytest -q` चलाओ।',
  ];
  const oneOff = ['Den här gången ska du inte pusha.', 'Tentokrát necommituj.', 'Цього разу не пуш.', 'Bu sefer push yapma.', 'Kali ini jangan push.', 'Lần này đừng push.', 'Αυτή τη φορά μην κάνεις push.', 'इस बार push मत करो।'];
  for (const t of lasting) it(`lasting: ${t}`, () => expect(statesLastingRule(t)).toBe(true));
  for (const t of oneOff) it(`one-off: ${t}`, () => expect(statesLastingRule(t)).toBe(false));

  const switches: Array<[string, Array<{ term: string; replacement?: string }>]> = [
    ['Vi har gått över från Poetry till uv.', [{ term: 'Poetry', replacement: 'uv' }]],
    ['Přešli jsme z Maven na Gradle.', [{ term: 'Maven', replacement: 'Gradle' }]],
    ['Ми перейшли з yarn на pnpm.', [{ term: 'yarn', replacement: 'pnpm' }]],
    ['Kami sudah pindah dari Deno ke Bun, `deno task test` tidak berlaku lagi.', [{ term: 'Deno', replacement: 'Bun' }, { term: 'deno task test' }]],
    ['Chúng tôi đã bỏ sqlc và chuyển sang sqlx.', [{ term: 'sqlc', replacement: 'sqlx' }]],
    ['Μεταβήκαμε από Jest σε Vitest.', [{ term: 'Jest', replacement: 'Vitest' }]],
  ];
  for (const [text, want] of switches) it(text, () => expect(staleTerms(text)).toEqual(want));
  it('a term no longer used, stated in Swedish, Czech, Vietnamese', () => {
    expect(staleTerms('tox används inte längre').map((t) => t.term)).toContain('tox');
    expect(staleTerms('Black už nepoužíváme.').map((t) => t.term)).toContain('Black');
    expect(staleTerms('sqlc không còn dùng nữa').map((t) => t.term)).toContain('sqlc');
  });
});
