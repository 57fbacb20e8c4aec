import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (b: TranscriptBuilder) => extractRollout({ records: b.end(), transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

describe('issue 12, kind 2: a fix is the whole chain between the failure and the success', () => {
  it('keeps the package-list update, the install and the config edit, as one lesson', async () => {
    const e = await extract(
      new TranscriptBuilder('Add a checksum to the WAL records.')
        .bash('cargo test', 101, 'error: linker `cc` not found\n  = note: No such file or directory (os error 2)')
        .bash('sudo apt-get install -y clang', 100, 'E: Unable to locate package clang')
        .bash('sudo apt-get update && sudo apt-get install -y clang', 0, 'Setting up clang (1:14.0-55.7~deb12u1) ...')
        .bash('cargo test', 101, 'error: linker `cc` not found')
        .edit('/workspace/.cargo/config.toml', 'create')
        .bash('cargo test', 0, 'test result: ok. 31 passed; 0 failed'),
    );
    const lessons = e.memories.filter((m) => m.kind !== 'preference');
    expect(lessons).toHaveLength(1);
    expect(lessons[0]!.text).toMatch(/apt-get update && sudo apt-get install -y clang/);
    expect(lessons[0]!.text).toMatch(/\.cargo\/config\.toml/);
  });

  it('names every setup command of a step and setup typed in front of the command that passed', async () => {
    const e = await extract(
      new TranscriptBuilder('Sort the queue by priority.')
        .bash('make lint', 2, 'make: golangci-lint: No such file or directory\nmake: *** [Makefile:5: lint] Error 127')
        .bash('go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.59.1 && export PATH=$PATH:$(go env GOPATH)/bin', 0, '')
        .bash('export PATH=$PATH:$(go env GOPATH)/bin && make lint', 0, ''),
    );
    expect(e.memories.map((m) => m.text).join('\n')).toMatch(/go install github\.com\/golangci\/golangci-lint\/cmd\/golangci-lint@v1\.59\.1/);
    const tox = await extract(
      new TranscriptBuilder('Add --dry-run.')
        .bash('tox -e py312', 1, 'py312: skipped because could not find python interpreter with spec(s): py312')
        .bash('pip install -q uv && uv python install 3.12', 0, 'Installed Python 3.12.4')
        .bash('pip install -q tox-uv && tox -e py312', 0, 'congratulations :)'),
    );
    const text = tox.memories.map((m) => m.text).join('\n');
    expect(text).toMatch(/uv python install 3\.12/);
    expect(text).toMatch(/tox-uv/);
  });
});

describe('issue 12, kind 5: flaky tests are a lesson naming the test', () => {
  it('an identical rerun that passes with nothing changed names the failed test', async () => {
    const e = await extract(
      new TranscriptBuilder('Finish the idle timeout.')
        .bash('go test ./internal/...', 1, 'ok  \ttarn/internal/config\t0.012s\n--- FAIL: TestPoolDrain (5.00s)\n    pool_test.go:88: drain did not finish within 5s\nFAIL\ttarn/internal/pool\t5.214s')
        .bash('go test ./internal/...', 0, 'ok  \ttarn/internal/pool\t1.188s'),
    );
    expect(e.memories).toHaveLength(1);
    expect(e.memories[0]!.text).toMatch(/Flaky test: `TestPoolDrain`.*identical rerun of `go test \.\/internal\/\.\.\.`/);
  });

  it('a rerun after an edit is a dev loop, not a flaky test', async () => {
    const e = await extract(
      new TranscriptBuilder('Fix the drain.')
        .bash('go test ./internal/...', 1, '--- FAIL: TestPoolDrain (5.00s)')
        .edit('/workspace/internal/pool/pool.go')
        .bash('go test ./internal/...', 0, 'ok'),
    );
    expect(e.memories).toEqual([]);
  });
});

describe('issue 12, kind 6: a redaction is never by itself a reason for a pitfall', () => {
  it('a documented local dev URL in a Makefile or a type annotation in source makes no secrets entry', async () => {
    const e = await extract(
      new TranscriptBuilder('Add a bucket.')
        .bash('cat Makefile', 0, 'DATABASE_URL ?= postgres://gantry:gantry@localhost:5432/gantry_dev\nvalidate:\n\tterraform validate')
        .bash('grep -n "def connect" wren/db.py', 0, '9:def connect(dsn: str, password: str | None = None) -> Connection:\nAPI_TOKEN = "[REDACTED:generic_secret]"'),
    );
    expect(e.memories.filter((m) => /secret/i.test(m.text))).toEqual([]);
  });

  it('the environment and dotenv files still make one, by variable name', async () => {
    const e = await extract(new TranscriptBuilder('Why does S3 fail?').bash('cat .env', 0, 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYFAKEFAKEKEY1\n').say('The .env holds real AWS credentials; the tests must use fake ones.'));
    expect(e.memories.map((m) => m.text).join('\n')).toMatch(/Secrets are present in \.env \(AWS_SECRET_ACCESS_KEY\)/);
  });
});

describe('issue 12, kind 3: a rollout summary lists only commands that ran', () => {
  it('the arguments of `command -v` are not commands', async () => {
    const e = await extract(new TranscriptBuilder('Check tools.').bash('cat Makefile && command -v golangci-lint protoc', 1, 'lint:\n\tgolangci-lint run'));
    expect(e.summary.tried.join('\n')).not.toMatch(/golangci-lint|protoc/);
  });
});
