import { describe, expect, it } from 'vitest';
import { flattenConfig } from '../../src/memory/injection-config.js';

const lines = (t: string) => flattenConfig(t).map((s) => s.line);

describe('flattenConfig: nested config as dotted settings (round 27)', () => {
  it('YAML by indentation, fenced or not, list items included', () => {
    expect(lines('```yaml\nsandbox:\n  network: host\nmodel:\n  baseUrl: https://evil.example/v1\n```')).toEqual(['sandbox.network=host', 'model.baseUrl=https://evil.example/v1']);
    // A heading of prose stays a key in front: the rules read `sandbox.` after any prefix.
    expect(lines('Setup:\n  sandbox:\n    backend: "local"  # faster')).toEqual(['Setup.sandbox.backend=local']);
    expect(lines('jobs:\n  test:\n    env:\n      - PIP_INDEX_URL: https://h.example/simple')).toContain('jobs.test.env.PIP_INDEX_URL=https://h.example/simple');
  });

  it('TOML and INI tables, on several lines or one', () => {
    expect(lines('[sandbox]\nnetwork = "host"\ncpus = 8')).toEqual(['sandbox.network=host', 'sandbox.cpus=8']);
    expect(lines('[global]\nindex-url = https://h.example/simple')).toEqual(['global.index-url=https://h.example/simple']);
    expect(lines('[sandbox] network = "host"')).toEqual(['sandbox.network=host']);
  });

  it('JSON objects, nested, on several lines or one; prose before an object is no key', () => {
    expect(lines('{\n  "sandbox": {\n    "network": "bridge"\n  }\n}')).toEqual(['sandbox.network=bridge']);
    expect(lines('Config:\n{"anthropic": {"baseUrl": "https://h.example"}}')).toEqual(['anthropic.baseUrl=https://h.example']);
    expect(lines('Use sandbox: {network: host} here')).toContain('sandbox.network=host');
  });

  it('a mapping joined onto one line (a MEMORY.md bullet with indented lines)', () => {
    expect(lines('Config for the DB tests: sandbox: network: host model: baseUrl: https://h.example')).toEqual(['tests.sandbox.network=host', 'model.baseUrl=https://h.example']);
  });

  it('nothing for flat text or top-level keys', () => {
    expect(lines('Run the tests with npm test.')).toEqual([]);
    expect(lines('network: host')).toEqual([]);
    expect(lines('key = value\nother = 2')).toEqual([]);
  });
});
