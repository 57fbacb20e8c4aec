import { failedTestNames } from './flaky.js';

/**
 * Whether a failed test run failed on the tests' own assertions (issue 12, round 23): the runner names the
 * failed tests and no line of its output names a problem of the environment (a missing module, program,
 * library, service or network). Such a failure is about the code: an edit that makes it pass fixed a bug (or
 * the test), and an option that gets past it (`--snapshot-update`, `--rerun-failed`) changed what was checked.
 * Neither teaches the next run anything about the environment.
 */
export function failedOnAssertions(output: string): boolean {
  if (failedTestNames(output, 1).length === 0) return false;
  return !RAISED.test(output) && !ENVIRONMENT.some((re) => re.test(output));
}

/**
 * An exception other than a failed assertion (`NoRegionError`, `TypeError`, `KeyError`, `IOException`): the test
 * did not get to its check, and what raised may be the environment (a region, a credential, a file the sandbox
 * lacks), fixed in a test-setup file (`conftest.py` pinning `AWS_DEFAULT_REGION`). `AssertionError`,
 * `AssertionFailedError` and the like are the check itself.
 */
const RAISED = /\b(?!Assertion)[A-Z]\w*(Error|Exception)\b/;

/**
 * Lines that name a problem of the environment, not of the code under test: whatever a test report around them
 * says, such a failure may teach how to run things here. Runner-neutral words (any language's test tool prints
 * them), never a runner's own layout.
 */
const ENVIRONMENT: RegExp[] = [
  /command not found|not recognized as (an internal|the name of)|No such file or directory|\bENOENT\b/i,
  /No module named|ModuleNotFoundError|ImportError|Cannot find module|cannot find package|could not (find|load|resolve|locate|open|connect)|cannot (find|load|open|connect|resolve)/i,
  /unable to (locate|find|resolve|connect|load|open)|not installed|is not available|missing (dependency|library|module|package|driver)|could not find driver/i,
  /connection refused|\bECONNREFUSED\b|\bEADDRINUSE\b|address already in use|name resolution|getaddrinfo|\bEAI_AGAIN\b|network is unreachable|timed? ?out/i,
  /permission denied|\bEACCES\b|\bEPERM\b|read-only file system|no space left/i,
  /undefined reference to|cannot open shared object|library not loaded|linker command failed|\bld: /i,
  /environment variable|\benv(ironment)? var\b|is not set\b|must be set\b/i,
];
