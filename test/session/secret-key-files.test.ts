/**
 * A secret the run wrote into a config file under a key whose name says secret, with a value of no known prefix
 * (`{"db_password": "…"}`, `api_secret: …`, `password = …`, `//registry/:_authToken=…`), passed silently: it stayed
 * in the workspace snapshot with no word, and under `memories/` it reached memory (eighth new-user trial, M2).
 * Now every such file is named with its keys in the result and the summary (never the value) and kept; under
 * `memories/` the value is redacted before any layer is written; the transcript (the heredoc that wrote the file,
 * a `cat` of it) holds none of them. A real-looking project's placeholders and local development defaults are not
 * reported. Real Docker sandbox, the scripted Messages server as the model.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { CONFIG_SECRET_CORPUS, NOT_SECRET_CONFIGS, NOT_SECRET_SOURCES, SOURCE_SECRET_CORPUS } from '../memory/secret-config-corpus.js';
import { blobsText, scratch, testConfig } from './harness.js';

/** The shell that writes `text` to `path` as the agent would: a quoted heredoc. */
const write = (path: string, body: string): string => `mkdir -p ${dirname(path)} && cat > ${path} <<'EOF'\n${body}EOF`;

/** The memory notes the agent keeps: the same forms, values of their own (told apart from the workspace's in the blobs). */
const MEMORY_NOTES = [
  { path: 'memories/deploy/database.ini', text: '[postgres]\nhost = db.internal\npassword = fakememorypass\n', secret: 'fakememorypass' },
  { path: 'memories/deploy/application.properties', text: 'spring.datasource.username=app\nspring.datasource.password = fakememoryspring\n', secret: 'fakememoryspring' },
  { path: 'memories/deploy/.npmrc', text: '//npm.acme.example/:_authToken=fakememorynpmtoken\n', secret: 'fakememorynpmtoken' },
  // Not one config document as a whole (a `run: |` block of shell lines): only its name says it is YAML.
  { path: 'memories/ci/deploy.yml', text: 'jobs:\n  deploy:\n    steps:\n      - run: |\n          npm ci\n          npm run deploy\n        env:\n          deploy_password: fakememoryworkflow\n', secret: 'fakememoryworkflow' },
];

/** A token in a file's name (eighth trial, LOW): that file is left out under its redacted name. */
const NAMED = 'ghp_FAKEinAName0a1B2c3D4e5F6g7H8i9J0kLmNoP';

/**
 * A repository the run made, whose remote's URL holds a password (round 17's secrets trial), and a commit whose
 * message tells one, repeated in COMMIT_EDITMSG and the reflog (twelfth trial): never reported.
 */
const REMOTE = {
  path: 'tools/cli/.git/config',
  secret: 'FAKEremote9Pw',
  commitSecret: 'FAKEcommit7Pw',
  command: [
    'git init -q tools/cli && git -C tools/cli remote add origin https://deploy:FAKEremote9Pw@git.example.com/cli.git',
    'echo cli > tools/cli/README && git -C tools/cli add README',
    'git -C tools/cli -c user.name=agent -c user.email=agent@example.com commit -qm "rotate: staging password is now FAKEcommit7Pw"',
    // How CI checkouts give git a token (actions/checkout): a header in the repository's config.
    'git init -q tools/ci && git -C tools/ci config http.https://github.com/.extraheader "AUTHORIZATION: bearer ghp_FAKEextraHeader0a1B2c3D4e5F6g7H8i9J0kL"',
  ].join(' && '),
};

/** `.netrc` is a credential file by content (`credential-files.ts`): left out whole, not reported by key. */
const REPORTED = [...CONFIG_SECRET_CORPUS.filter((c) => c.path !== '.netrc'), ...SOURCE_SECRET_CORPUS];

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let run: SessionResult;

beforeAll(async () => {
  dirs = scratch('secret-keys');
  // The user's project before the run: a package.json and a docker-compose.yml with a local database's defaults.
  writeFileSync(join(dirs.workspace, 'package.json'), NOT_SECRET_CONFIGS.find((c) => c.path === 'package.json')!.text);
  writeFileSync(join(dirs.workspace, 'docker-compose.yml'), NOT_SECRET_CONFIGS.find((c) => c.path === 'docker-compose.yml')!.text);
  mkdirSync(join(dirs.workspace, 'config'), { recursive: true });
  writeFileSync(join(dirs.workspace, 'config', 'base.yaml'), 'server:\n  port: 8080\n');
  const configure = [...CONFIG_SECRET_CORPUS, ...SOURCE_SECRET_CORPUS, ...NOT_SECRET_SOURCES, ...NOT_SECRET_CONFIGS.filter((c) => !['package.json', 'docker-compose.yml'].includes(c.path))].map((c) => write(c.path, c.text));
  server = await startMessagesServer([
    // A nested repository's sample hooks (`git init`) must not be reported (eleventh trial, low).
    turn(toolUse('bash', { command: [...configure, `mkdir -p notes && echo 'rotate this one' > notes/${NAMED}.txt`, 'mkdir -p vendor/lib/.git/hooks && printf \'my $token = "abcd1234efgh";\\n\' > vendor/lib/.git/hooks/fsmonitor-watchman.sample', REMOTE.command].join('\n') })),
    // The run edits the compose file (a local dev default added): changed, still nothing to report.
    turn(toolUse('bash', { command: "printf '      PGADMIN_DEFAULT_PASSWORD: admin\\n' >> docker-compose.yml && cat src/main/resources/application.properties config/database.ini" })),
    turn(toolUse('bash', { command: MEMORY_NOTES.map((n) => write(n.path, n.text)).join('\n') })),
    turn(text('Configured the service.')),
  ]);
  run = await runSession({ workspace: dirs.workspace, task: 'Configure the service for production.', config: testConfig(dirs.home, server.url), lineage: 'config-keys' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('config files the run wrote with values under secret-named keys', () => {
  it('are named with their keys in the result, each kind, and nothing else is', () => {
    expect(run.outcome).toBe('completed');
    const found = Object.fromEntries((run.secretKeyFiles ?? []).map((f) => [f.path, f.keys.map((k) => k.key)]));
    for (const c of REPORTED) expect(found[c.path], c.name).toContain(c.key);
    expect(found[REMOTE.path]).toEqual(["a URL's password"]);
    // A token in a nested repository's config is the token scan's: reported once, kept (the repository needs it).
    expect(run.secretFiles).toContainEqual(expect.objectContaining({ path: 'tools/ci/.git/config', kinds: ['github_token'], action: 'kept' }));
    expect(found['tools/ci/.git/config']).toBeUndefined();
    expect(found['tools/cli/.git/COMMIT_EDITMSG']).toEqual(['a password']);
    expect(found['tools/cli/.git/logs/HEAD']).toEqual(['a password']);
    const git = [REMOTE.path, 'tools/cli/.git/COMMIT_EDITMSG', 'tools/cli/.git/logs/HEAD'];
    expect(Object.keys(found).sort()).toEqual([...new Set([...REPORTED.map((c) => c.path), ...git])].sort());
    expect(run.credentialFiles?.map((f) => f.path)).toEqual(['.netrc']);
  });

  it('are named in the summary with what to do, and no value is', () => {
    const summary = formatSummary(run);
    expect(summary).toMatch(/secret {6}config\/database\.ini holds what looks like a secret under password \(line 5\) .*in the workspace snapshot: .*environment variable/);
    expect(summary).toContain('.npmrc holds what looks like a secret under _auth (line 2)');
    for (const c of [...CONFIG_SECRET_CORPUS, ...SOURCE_SECRET_CORPUS, REMOTE]) expect(summary, c.path).not.toContain(c.secret);
    expect(summary).not.toContain('ghp_FAKEextraHeader');
    expect(summary).toContain(`${REMOTE.path} holds what looks like a secret as a URL's password (line 7) (by its name or form) and is in the workspace snapshot: a git remote's URL or a commit message holds it`);
    expect(summary).not.toContain(REMOTE.commitSecret);
    expect(summary).toContain('infra/main.tf holds what looks like a secret as a secret value (line 4) (by its name or form;');
  });

  it('stay in the workspace snapshot (reported, never taken out of the user\'s project)', () => {
    const blobs = blobsText(dirs.home);
    for (const c of REPORTED) expect(blobs, c.name).toContain(c.secret);
  });

  it('under memories/ lose their values before any layer or the host memory holds them', () => {
    const blobs = blobsText(dirs.home);
    for (const n of MEMORY_NOTES) expect(blobs, n.path).not.toContain(n.secret);
    expect(blobs).toContain('spring.datasource.password = [REDACTED:password]');
  });

  it('a file whose name holds a token is left out under its redacted name, which no blob holds', () => {
    expect(run.secretFiles).toContainEqual(expect.objectContaining({ path: 'notes/[REDACTED:github_token].txt', action: 'left-out', inName: true }));
    expect(blobsText(dirs.home)).not.toContain(NAMED);
    expect(formatSummary(run)).not.toContain(NAMED);
  });

  it('leave no value in the transcript: not the heredoc that wrote them, not the cat that printed them', () => {
    const transcript = readFileSync(run.transcriptPath!, 'utf8');
    expect(transcript).toContain('spring.datasource.password = [REDACTED:password]');
    const left = [...CONFIG_SECRET_CORPUS, ...SOURCE_SECRET_CORPUS, ...MEMORY_NOTES, REMOTE, { path: 'commit message', secret: REMOTE.commitSecret }].filter((c) => transcript.includes(c.secret)).map((c) => c.path);
    expect(left).toEqual([]);
  });
});
