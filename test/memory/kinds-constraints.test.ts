import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { tempWorkspace, writeRollout } from './helpers.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

// Issue 12 item 3: what a failed run found about its environment outlives the task (a fact), in several languages.
describe('constraints of the environment found by a run that did not finish become a fact', () => {
  const cases: Array<[string, string, string]> = [
    ['en', 'Root cause: this sandbox has no network, so pip cannot download opencv-python-headless.', 'Plan: (1) with network, switch to opencv-python-headless; (2) add the Canny step.'],
    ['es', 'Causa raíz: opencv-python necesita libGL.so.1 (paquete libgl1), y este entorno no tiene red.', 'Plan: (1) con red, cambiar a opencv-python-headless.'],
    ['ja', '原因: この環境では sudo にパスワードが必要で、rubygems.org にも接続できません。', '次の手順: ネットワークのある環境で bundle update nokogiri を実行する。'],
    ['de', 'In dieser Umgebung ist /srv/cache schreibgeschützt, daher schlägt der Build fehl.', 'Nächste Schritte: den Cache nach /tmp legen.'],
    ['zh', '原因：当前环境无法访问 registry.npmjs.org，npm install 一直超时。', '下一步：在有网络的机器上更新 package-lock.json。'],
    ['tr', 'Asıl engel: bu ortamda ağ yok, bu yüzden cabal Hackage indeksini indiremiyor.', 'Sonraki adımlar: ağ olan bir makinede `cabal update` çalıştırmak.'],
    ['id', 'Penyebab: lingkungan ini tidak ada jaringan, jadi `pub get` gagal.', 'Rencana: jalankan `dart pub get` di mesin dengan jaringan.'],
    ['vi', 'Nguyên nhân: môi trường này không có mạng nên `go mod download` thất bại.', 'Kế hoạch: chạy lại `go mod download` ở máy có mạng.'],
    ['sv', 'Orsak: miljön saknar nätverk, så `swift package resolve` når inte GitHub.', 'Nästa steg: kör `swift package resolve` med nätverk.'],
    ['cs', 'Příčina: v tomto prostředí není nainstalován CMake 3.27, jen 3.25.', 'Další kroky: použít CMake z /opt.'],
    ['uk', 'Причина: у цьому середовищі немає мережі, тому `sbt update` не працює.', 'План: запустити `sbt update` там, де є мережа.'],
  ];
  for (const [lang, constraint, plan] of cases) {
    it(`${lang}: the constraint is a fact; the plan stays with the unfinished task`, async () => {
      const b = new TranscriptBuilder('Add the preprocessing step.').bash('make test', 1, 'E   ImportError: something failed').say(`${constraint} ${plan}`);
      const e = await extract(b.end('error'));
      const fact = e.memories.find((m) => m.kind === 'fact' && m.text.startsWith('Found by a run that did not finish'));
      expect(fact?.text, lang).toContain(constraint);
      expect(fact!.text).not.toContain(plan);
      const state = e.memories.find((m) => m.kind === 'task_state')!;
      expect(state.text).toContain(plan);
      expect(state.text).not.toContain(constraint);
    });
  }

  it('a cause in the code, a design note and a completed run give no constraint fact', async () => {
    const code = 'Ursache der restlichen Fehler: Get/Put/Delete verwenden noch die Map. The sync only knows the file list up front, so bytes would need a stat pass first.';
    const partial = await extract(new TranscriptBuilder('Use SQLite.').bash('go build ./...', 1, 'store.go:3: undefined: db').say(code).end('error'));
    expect(partial.memories.filter((m) => m.kind === 'fact')).toEqual([]);
    const done = await extract(new TranscriptBuilder('Fix it.').bash('make test', 0, 'ok').say('Done. This sandbox has no network, which did not matter.').end('completed'));
    expect(done.memories.filter((m) => m.text.startsWith('Found by'))).toEqual([]);
  });
});

function cand(text: string, order: number, kind: Candidate['kind']): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 4, at: `2026-01-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

// Issue 12 item 3, supersede "only on a real contradiction": a switch away from X retires what recommends X.
describe('a switch away from a command does not retire a pitfall whose fix is another command', () => {
  it('"use `./gradlew check` instead of `build`" keeps "build failed … what worked: ktlintFormat"', () => {
    const ktlint = cand('In this environment `./gradlew build` failed: “Execution failed for task \':ktlintMainSourceSetCheck\'.”. What worked: `./gradlew ktlintFormat`.', 1, 'pitfall');
    const pref = cand('The user said mid-run: “From now on use `./gradlew check` instead of `build` before committing”', 0, 'preference');
    expect(dropSuperseded([pref, ktlint]).superseded).toEqual([]);
  });
  it('the same switch still retires a pitfall whose fix uses the old command, and one with no fix', () => {
    const fixUses = cand('In this environment `npm ci` failed: “ERESOLVE”. What worked: `npm ci --legacy-peer-deps`.', 1, 'pitfall');
    const noFix = cand('In this environment `npm install` failed: “EACCES”.', 2, 'pitfall');
    const sw = cand('The task states that the repository changed: “we moved from npm to pnpm”', 0, 'fact');
    expect(new Set(dropSuperseded([sw, fixUses, noFix]).superseded.map((s) => s.stale))).toEqual(new Set([fixUses, noFix]));
  });
});

// Issue 12 item 3: a later success retires a pitfall about that command — also a constraint of the environment.
describe('a constraint a later run got through is lifted, and the memory says so', () => {
  it('a later exit 0 on the same path retires it and states that it works now', async () => {
    const paths = await tempWorkspace();
    const config = { maxRawMemories: 256, memoryMdTokens: 3000, summaryTokens: 800 };
    const constraint = 'Found by a run that did not finish (Replay the jobs): “/data is not readable for this user; using the copy in test/fixtures instead.”';
    await writeRollout(paths, 'r-1', '2026-01-01T00:00:00.000Z', [{ kind: 'fact', text: constraint, importance: 4, keywords: ['/data'], evidence: { lines: [1] } }]);
    await consolidate({ paths, config, mode: 'deterministic', now: () => new Date('2026-01-02T00:00:00.000Z') });
    await writeRollout(paths, 'r-2', '2026-01-03T00:00:00.000Z', [], { tried: ['`head -3 /data/jobs.csv && node replay.js` → exit 0 (but its output shows a failure)'] });
    const r = await consolidate({ paths, config, mode: 'deterministic', now: () => new Date('2026-01-04T00:00:00.000Z') });
    const kept = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.map((e) => e.text);
    expect(kept.some((t) => t.startsWith('Found by'))).toBe(false);
    const now = kept.find((t) => t.includes('works now'));
    expect(now).toMatch(/^`head -3 \/data\/jobs\.csv && node replay\.js` works now, so an earlier run's finding about `\/data` no longer holds .*`mnemara memory search \/data`/);
    // The retired claim itself is not repeated: quoted, the next agent would read it as true.
    expect(now).not.toMatch(/not readable|test\/fixtures/);
    expect(r.superseded.map((s) => s.stale)).toEqual([constraint]);
    // A replacing fact is a new entry with an id of its own: it was written `id:undefined`, which the next read
    // takes for a person's bullet (kept past caps, never retired by a run) and `memory forget` cannot name.
    const md = await readFile(paths.memoryMd, 'utf8');
    expect(md).not.toContain('id:undefined');
    const entry = parseMemoryMd(md).entries.find((e) => e.text.includes('works now'));
    expect(entry?.id).toMatch(/^m-[0-9a-f]{8}$/);
    expect(entry?.edited).toBe(false);
  });

  it('an exit 0 elsewhere, or an older one, lifts nothing', () => {
    const c = cand('Found by a run that did not finish (x): “cannot reach registry.corp.internal from this sandbox.”', 1, 'fact');
    const outcomes = [
      { order: 0, passed: ['npm test'], exited0: ['npm test', 'cat /registry.corp'] },
      { order: 2, passed: ['curl https://registry.corp.internal/v2/'] },
    ];
    expect(dropSuperseded([c], outcomes).superseded).toEqual([]);
    expect(dropSuperseded([c], [{ order: 0, passed: ['curl -sf https://registry.corp.internal/v2/'] }]).lifted.map((l) => l.command)).toEqual(['curl -sf https://registry.corp.internal/v2/']);
  });
});

// Issue 12 item 3: "no longer" in several languages names what it retires, also inside package and task names.
describe('a stated change retires entries naming the old stack, in more languages and spellings', () => {
  it('fr, de, en with an article, it, nl: the terms are found', async () => {
    const { staleTerms } = await import('../../src/memory/phase2/supersede.js');
    const terms = (t: string) => staleTerms(t).map((x) => x.term);
    expect(terms("on n'utilise plus MySQL : plus besoin de libmysqlclient ni de serveur MariaDB.")).toEqual(['MySQL', 'libmysqlclient', 'MariaDB']);
    expect(terms('Wir benutzen Spotless nicht mehr; stattdessen ktlint.')).toEqual(['Spotless']);
    expect(terms('FYI: we no longer use the /opt/terraform/plugins mirror.')).toEqual(['/opt/terraform/plugins']);
    expect(terms('Non usiamo più Jest.')).toEqual(['Jest']);
    expect(terms('We gebruiken yarn niet meer.')).toEqual(['yarn']);
  });
  it('the old term retires entries that name it inside a package or a task name, and nothing else', async () => {
    const { migrationRetires } = await import('../../src/memory/phase2/supersede.js');
    expect(migrationRetires('Wir benutzen Spotless nicht mehr.', 'Immer `./gradlew spotlessApply` vor dem Commit.')).toBe(true);
    expect(migrationRetires("plus besoin de libmysqlclient ni de serveur MariaDB", '`sudo apt-get install -y default-libmysqlclient-dev mariadb-server`')).toBe(true);
    expect(migrationRetires('We no longer use Spotless.', 'Run `./gradlew ktlintFormat` before `./gradlew build`.')).toBe(false);
    expect(migrationRetires('We no longer use MySQL.', 'The `mysqldump` backup script lives in ops/.')).toBe(false);
  });
});

// Issue 12 item 3: a run that finishes the earlier task closes its unfinished-work entry, whatever the language.
describe('unfinished work is closed by a later run that finished it', () => {
  const unfinished = (order: number, text: string): Candidate => cand(text, order, 'task_state');
  it('by a shared code identifier, or a task that says it carries on the previous one', async () => {
    const { closeFinishedTasks } = await import('../../src/memory/phase2/task-state.js');
    const old = unfinished(1, 'Unfinished (stopped at the turn limit): Invoices::PdfRenderer puts the VAT line under the total; move it above.');
    const out = (task: string, outcome = 'completed') => [{ rolloutId: 'r0', order: 0, task, outcome, passed: [], exited0: [] }];
    expect(closeFinishedTasks([old], out('Termine : la ligne de TVA au-dessus du total dans Invoices::PdfRenderer.')).closed).toEqual([old]);
    expect(closeFinishedTasks([old], out('Termine la tâche précédente, s’il te plaît.')).closed).toEqual([old]);
    expect(closeFinishedTasks([old], out('Termine la tâche précédente.', 'interrupted')).closed).toEqual([]);
    expect(closeFinishedTasks([old], out('Add a CSV export of the ledger.')).closed).toEqual([]);
    // "The previous task" is the newest unfinished one, not every one.
    const older = unfinished(2, 'Unfinished: the retry queue in src/queue.ts.');
    expect(closeFinishedTasks([old, older], out('Finish the previous task.')).closed).toEqual([old]);
  });
});

// Issue 12 item 3: "a fix is the whole chain": setup that got a command past its error is the fix of that
// error even when the command then failed on a real bug the run fixed in the code.
describe('setup that got a command past its first error is kept, also when the command then failed on another', () => {
  it('`cp .env.example .env.test && pnpm test` moved past "Missing env" to an assertion: a procedure with the cp', async () => {
    const b = new TranscriptBuilder('Hide the checkout button when the cart is empty.')
      .bash('cd /workspace && pnpm test -- src/cart', 1, ' × renders total\n   → Error: Missing env VITE_API_BASE (see src/env.ts)\n Test Files  1 failed (1)')
      .bash('cd /workspace && cp .env.example .env.test && pnpm test -- src/cart', 1, ' ✓ renders total\n × hides checkout when empty\n   → AssertionError: expected document not to contain element\n Test Files  1 failed (1)');
    const e = await extract(b.end('completed'));
    const fix = e.memories.find((m) => m.text.includes('cp .env.example .env.test'));
    expect(fix?.kind).toBe('procedure');
    expect(fix!.text).toMatch(/^`pnpm test -- src\/cart` needs `cp \.env\.example \.env\.test` first/);
  });
  it('the same error again, or no setup in between, is no fix', async () => {
    const same = new TranscriptBuilder('t')
      .bash('pnpm test', 1, 'Error: Missing env VITE_API_BASE')
      .bash('cp .env.example .env.local && pnpm test', 1, 'Error: Missing env VITE_API_BASE');
    expect((await extract(same.end('completed'))).memories.filter((m) => m.text.includes('cp .env.example'))).toEqual([]);
    const rerun = new TranscriptBuilder('t').bash('pnpm test', 1, 'Error: Missing env VITE_API_BASE').bash('pnpm test', 1, 'AssertionError: expected 1 to be 2');
    expect((await extract(rerun.end('completed'))).memories.filter((m) => m.kind === 'procedure')).toEqual([]);
  });
});

describe('a line the agent labelled as the environment is kept whole, its workaround included', () => {
  it('"- Environment: …" in the final message: every sentence of it, not only the one that says "no network"', async () => {
    const final = 'Not fixed; I stopped on purpose.\n\nFindings:\n- Environment: the default `go` is 1.19.13 but go.mod needs 1.22.3. Downloading a toolchain fails: no network. A Go 1.22 toolchain is installed at /usr/lib/go-1.22: `export PATH=/usr/lib/go-1.22/bin:$PATH` makes `go test` work.\n- Root cause: renew holds l.mu while sending on renewCh.\n\nPlan: (1) send after unlocking.';
    const e = await extract(new TranscriptBuilder('Fix the hang.').bash('go test ./...', 1, 'go: go.mod requires go >= 1.22.3').say(final).end('error'));
    const fact = e.memories.find((m) => m.text.startsWith('Found by'))!;
    expect(fact.text).toContain('`export PATH=/usr/lib/go-1.22/bin:$PATH` makes `go test` work.');
    expect(fact.text).not.toContain('renew holds');
    const ja = '調査結果:\n- 環境の制約: このサンドボックスには `buf` がありません。`npx @bufbuild/buf generate` なら動きます。\n- 次の手順: turbo.json を直す。';
    const e2 = await extract(new TranscriptBuilder('ビルドを直して').bash('pnpm build', 1, 'sh: 1: buf: not found').say(ja).end('error'));
    expect(e2.memories.find((m) => m.text.startsWith('Found by'))?.text).toContain('`npx @bufbuild/buf generate` なら動きます。');
  });
});

describe('the whole chain survives: setup typed before a rerun that failed again, and a later run confirming part of it', () => {
  it('`apt-get update && apt-get install build-essential && cargo build` failing on the next missing piece is part of the chain', async () => {
    const b = new TranscriptBuilder('Build it.')
      .bash('cd /workspace && cargo build', 101, 'error: linker `cc` not found\n  = note: No such file or directory (os error 2)')
      .bash('sudo apt-get install -y build-essential', 100, 'E: Unable to locate package build-essential')
      .bash('sudo apt-get update -qq && sudo apt-get install -y build-essential && cd /workspace && cargo build', 101, 'Could not find directory of OpenSSL installation')
      .bash('sudo apt-get install -y pkg-config libssl-dev && cd /workspace && cargo build', 0, 'Finished dev [unoptimized + debuginfo] target(s)');
    const fix = (await extract(b.end('completed'))).memories.find((m) => m.text.includes('libssl-dev'))!;
    expect(fix.text).toMatch(/apt-get update[\s\S]*build-essential[\s\S]*pkg-config libssl-dev/);
  });
  it('a near-duplicate from a later run that names part of the chain keeps the older, fuller wording', async () => {
    const { mergeRawMemories } = await import('../../src/memory/phase2/merge.js');
    const full = '`./gradlew test` needs `sudo apt-get install -y openjdk-17-jdk-headless`, then changing gradle.properties first. Without it `./gradlew test` failed: “Cannot find a Java installation”.';
    const part = '`./gradlew test` needs `sudo apt-get install -y openjdk-17-jdk-headless` first. Without it `./gradlew test` failed: “Cannot find a Java installation”.';
    const raw = (text: string) => ({ kind: 'procedure' as const, text, importance: 3, keywords: [], evidence: { lines: [1] } });
    const merged = mergeRawMemories([
      { rolloutId: 'r2', time: '2026-01-02T00:00:00.000Z', memories: [raw(part)], hash: 'b' },
      { rolloutId: 'r1', time: '2026-01-01T00:00:00.000Z', memories: [raw(full)], hash: 'a' },
    ]);
    expect(merged.map((c) => c.text)).toEqual([full]);
    expect(merged[0]!.sources).toEqual(['r2', 'r1']);
  });
});
