import { describe, expect, it } from 'vitest';
import { judgeStrict, statedText, ToolOutputs } from '../../scripts/eval-memory/strict.js';

const outputs = new ToolOutputs([
  'error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)\n[exit code: 101]',
  'botocore.exceptions.NoRegionError: You must specify a region.',
]);

const cases = [
  {
    transcript: 'a.json',
    labels: {
      id: 'r-1', repo: 'r', sequence: 1, forbidden: [],
      lessons: [
        { id: 'L1', kind: 'pitfall', statement: '', must_match_any: ['clang', 'linker'] },
        { id: 'L2', kind: 'fact', statement: '', must_match_any: ['AWS_DEFAULT_REGION', 'region'], dedupe_key: 'region' },
      ],
    },
  },
];

describe('the strict scorer', () => {
  it('does not count a lesson found only in quoted tool output', () => {
    const quotedOnly = 'In this environment `cargo test` failed: “error: linker `cc` not found”.';
    expect(statedText(quotedOnly, outputs)).not.toMatch(/linker/);
    const f = judgeStrict(cases, [quotedOnly, 'Tests failed: “botocore.exceptions.NoRegionError: You must specify a region.”'], outputs);
    expect(f.captured).toBe(0);
    expect(f.junk).toBe(2);
  });

  it('counts the lesson when the entry states it in its own words; code spans stay even if output printed them', () => {
    const stated = '`cargo test` needs a C linker: `sudo apt-get install -y clang` and `export CC=clang` first (the image has no `cc`).';
    const f = judgeStrict(cases, [stated, 'Set `AWS_DEFAULT_REGION` before the S3 tests; boto3 has no default region.'], outputs);
    expect(f).toMatchObject({ captured: 2, junk: 0, duplicates: 0 });
  });

  it('removes unquoted pasted output lines and blockquotes too', () => {
    const pasted = 'Seen: botocore.exceptions.NoRegionError: You must specify a region.\n> error: linker `cc` not found';
    expect(judgeStrict(cases, [pasted], outputs)).toMatchObject({ captured: 0, junk: 1 });
  });

  it('keeps a quote of words that no tool printed (the user’s words)', () => {
    expect(statedText('The user said: “always set the region explicitly”', outputs)).toMatch(/region/);
  });

  it('counts entries beyond the first that state only the same lesson as duplicates', () => {
    const f = judgeStrict(cases, ['Set the region: `export AWS_DEFAULT_REGION=eu-west-1`.', 'S3 needs a region (AWS_DEFAULT_REGION).'], outputs);
    expect(f.duplicates).toBe(1);
  });
});

describe('the strict scorer reads the entry kind (issue 12 item 7)', () => {
  const prefCases = [
    {
      transcript: 'b.json',
      labels: {
        id: 'p-1', repo: 'p', sequence: 1, forbidden: [],
        lessons: [
          { id: 'L1', kind: 'preference', statement: 'Lint with `make lint` before every commit.', must_match_any: ['make lint'] },
          { id: 'L2', kind: 'task_state', statement: 'Unfinished: the importer.', must_match_any: ['importer'] },
        ],
      },
    },
  ];

  it('does not let a pitfall that mentions the command count as the preference', () => {
    const pitfall = { kind: 'pitfall', text: 'In this environment `make lint` failed in packages/web; what worked: `pnpm -C packages/web lint`.' };
    const f = judgeStrict(prefCases, [pitfall], outputs);
    expect(f.captured).toBe(0);
    expect(f.missed).toContain('p-1:L1');
    expect(f.junk).toBe(1);
  });

  it('counts a preference entry that states it, and only a task_state for unfinished work', () => {
    const f = judgeStrict(prefCases, [
      { kind: 'preference', text: 'The user said mid-run: “from now on always run `make lint` before a commit”' },
      { kind: 'fact', text: 'The importer lives in src/importer.' },
      { kind: 'task_state', text: 'Unfinished (the agent stopped on purpose): the importer.' },
    ], outputs);
    expect(f).toMatchObject({ captured: 2, junk: 1 });
  });

  it('treats a bare string as of unknown kind (any)', () => {
    expect(judgeStrict(prefCases, ['always run `make lint`'], outputs).captured).toBe(1);
  });
});
