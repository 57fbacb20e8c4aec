/**
 * Rule 1 of "the newer fact wins" (same subject, same tool, other arguments) must not read two subjects of the
 * same shape as one: notes that each name their own service, package or target, with a command whose argument
 * is that name, stand side by side (new-user trial 27: three concurrent runs' notes retired one another).
 */
import { describe, expect, it } from 'vitest';
import { sameSubjectOtherArguments } from '../../src/memory/phase2/supersede.js';

describe('sameSubjectOtherArguments and subjects named in their commands', () => {
  it.each([
    ['The west service is started with `make west-up` before its tests.', 'The north service is started with `make north-up` before its tests.'],
    ['The web tests run with `pytest tests/web -x`.', 'The api tests run with `pytest tests/api -x`.'],
    ['Der Dienst payments startet mit `docker compose up payments`.', 'Der Dienst billing startet mit `docker compose up billing`.'],
    ['Build the docs package with `npm run build --workspace docs`.', 'Build the server package with `npm run build --workspace server`.'],
  ])('keeps both: %s / %s', (newer, older) => {
    expect(sameSubjectOtherArguments(newer, older)).toBe(false);
  });

  it.each([
    ['Build with `cmake --build build -j4` to avoid OOM kills.', 'Build with `cmake --build build -j16` to avoid OOM kills.'],
    ['Lint the project with `npm run lint:fix`.', 'Lint the project with `npm run lint`.'],
    ['Start the database with `docker compose up -d db` before the tests.', 'Start the database with `docker compose up db` before the tests.'],
  ])('still retires the older: %s / %s', (newer, older) => {
    expect(sameSubjectOtherArguments(newer, older)).toBe(true);
  });
});
