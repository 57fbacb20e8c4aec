import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/config/logger.js';

describe('text log format', () => {
  it('turns a pino record into one readable line with its fields', () => {
    const line = JSON.stringify({ level: 40, time: 1, pid: 2, hostname: 'h', name: 'mnemara', module: 'snapshot', id: 'S1', msg: 'skipping unreadable snapshot' });
    expect(formatLogLine(line)).toBe('mnemara: warning [snapshot]: skipping unreadable snapshot (id=S1)');
  });

  it('shows an error by its message, without the stack', () => {
    const line = JSON.stringify({ level: 50, module: 'session', err: { type: 'MnemaraError', message: 'state is not valid JSON', stack: 'MnemaraError: x\n    at badState' }, msg: 'memory pipeline failed' });
    expect(formatLogLine(line)).toBe('mnemara: error [session]: memory pipeline failed (err=state is not valid JSON)');
  });

  it('keeps a line that is not JSON as it is', () => {
    expect(formatLogLine('not json')).toBe('not json');
  });
});
