/**
 * Builds a file tree like the ones agents and real projects leave behind, with every odd thing a snapshot
 * must survive: names that are not UTF-8, FIFOs and a socket, links of every kind (inside, outward, absolute
 * into /workspace, a venv's interpreter, dangling, into memories/), an unreadable file, a sparse file,
 * deep and long paths, a directory with many entries, build caches. Written here from POSIX's rules, no copies.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** What `buildMessyTree` made, for assertions (paths relative to the root, `/`-separated). */
export interface MessyTree {
  /** Names with bytes that are not UTF-8, as Buffers (relative paths). */
  binaryNames: Buffer[];
  specials: string[];
  links: Record<string, string>;
  unreadable: string;
  sparse: { path: string; bytes: number };
  deep: string;
  long: string;
  bigDir: { path: string; entries: number };
  caches: string[];
}

const b = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/**
 * Writes the messy tree under `root` (which must exist). `entries` sets the size of the big directory
 * (default 20,000); `sparseBytes` the apparent size of the sparse file (default 1 GiB, a few KiB on disk).
 */
export function buildMessyTree(root: string, options: { entries?: number; sparseBytes?: number } = {}): MessyTree {
  const at = (rel: string | Buffer): string | Buffer => (typeof rel === 'string' ? join(root, rel) : Buffer.concat([Buffer.from(`${root}/`), rel]));
  const dirs = ['src/app', 'docs', 'memories', '.git/refs', '.venv/bin', 'build/__pycache__', '.pytest_cache', 'sessions'];
  for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(at('src/app/main.py'), 'print("hello")\n');
  writeFileSync(at('src/app/ünïcødé-名前.txt'), 'unicode name\n');
  writeFileSync(at('docs/notes.md'), '# Notes\nThe build needs make.\n');
  writeFileSync(at('memories/MEMORY.md'), '# Memory\n- tests run with `make test`\n');
  writeFileSync(at('build/__pycache__/main.cpython-311.pyc'), Buffer.alloc(64, 1));
  writeFileSync(at('.pytest_cache/v'), 'cache');

  // Two names that differ only in a byte that is not UTF-8, a directory named so, and a link to one of them.
  const binaryNames = [b('a', [0xfe], '.md'), b('a', [0xff], '.md'), b('dir-', [0xe9, 0x80], '/inner.txt')];
  writeFileSync(at(binaryNames[0]!), 'first');
  writeFileSync(at(binaryNames[1]!), 'second');
  mkdirSync(at(b('dir-', [0xe9, 0x80])));
  writeFileSync(at(binaryNames[2]!), 'inside a latin-1 directory');
  symlinkSync(b('a', [0xfe], '.md'), at(b('link-to-', [0xfe])));

  const links: Record<string, string> = {
    'memories/project-notes': '../docs/notes.md',
    'docs/abs-workspace': '/workspace/docs/notes.md',
    '.venv/bin/python': '/usr/bin/python3',
    '.venv/bin/python3': 'python',
    'dangling': 'does/not/exist',
    'src/up': '..',
  };
  for (const [p, target] of Object.entries(links)) symlinkSync(target, join(root, p));

  const specials = ['.git/x.fifo', 'memories/pipe', 'agent.sock'];
  execFileSync('mkfifo', [join(root, specials[0]!), join(root, specials[1]!)]);
  execFileSync('python3', ['-c', 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])', join(root, specials[2]!)]);

  const unreadable = 'secret.key';
  writeFileSync(join(root, unreadable), 'not for you');
  chmodSync(join(root, unreadable), 0o000);

  const sparse = { path: 'disk.img', bytes: options.sparseBytes ?? 1024 ** 3 };
  const fd = openSync(join(root, sparse.path), 'w');
  writeSync(fd, 'HEAD');
  closeSync(fd);
  truncateSync(join(root, sparse.path), sparse.bytes);

  const deepParts = Array.from({ length: 120 }, (_, i) => `d${i}`);
  mkdirSync(join(root, ...deepParts), { recursive: true });
  writeFileSync(join(root, ...deepParts, 'deep.txt'), 'deep');
  const longParts = Array.from({ length: 14 }, (_, i) => `${String(i).padStart(2, '0')}${'L'.repeat(240)}`);
  mkdirSync(join(root, ...longParts), { recursive: true });
  writeFileSync(join(root, ...longParts, 'long.txt'), 'long');

  const entries = options.entries ?? 20_000;
  const bigDir = { path: 'generated', entries };
  mkdirSync(join(root, bigDir.path));
  for (let i = 0; i < entries; i++) writeFileSync(join(root, bigDir.path, `f${String(i).padStart(5, '0')}.txt`), `${i}\n`);

  return {
    binaryNames,
    specials,
    links,
    unreadable,
    sparse,
    deep: [...deepParts, 'deep.txt'].join('/'),
    long: [...longParts, 'long.txt'].join('/'),
    bigDir,
    caches: ['build/__pycache__', '.pytest_cache'],
  };
}
