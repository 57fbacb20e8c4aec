import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';
import type { DirectoryStore } from '../../src/snapshot/index.js';
import { newSnapshotId } from '../../src/snapshot/id.js';
import type { Manifest } from '../../src/snapshot/types.js';

/** One raw entry of a hand-built (possibly hostile) archive. */
export interface RawEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'BlockDevice' | 'FIFO';
  mode?: number;
  body?: string | Buffer;
  /** Declared size when it should differ from the body's (a lying header). */
  size?: number;
  linkpath?: string;
}

/** Builds an uncompressed tar exactly as given: no path cleaning, any type, pax records for long names. */
export function buildTar(entries: RawEntry[], trailer: Buffer = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const type = e.type ?? 'File';
    const data = {
      path: e.path,
      type,
      mode: e.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      size: e.size ?? (type === 'File' ? body.length : 0),
      mtime: new Date(1_700_000_000_000),
      linkpath: e.linkpath ?? '',
      uid: 0,
      gid: 0,
    };
    const block = Buffer.alloc(512);
    const long = Buffer.byteLength(e.path) > 255; // node-tar's ustar split is quadratic: go to pax directly
    if (new Header(long ? { ...data, path: 'long' } : data).encode(block) || long) parts.push(new Pax({ path: e.path, linkpath: e.linkpath, size: data.size, mtime: data.mtime }).encode());
    parts.push(block);
    if (body.length) {
      parts.push(body);
      if (body.length % 512) parts.push(Buffer.alloc(512 - (body.length % 512)));
    }
  }
  parts.push(Buffer.alloc(1024), trailer);
  return Buffer.concat(parts);
}

/**
 * Puts a snapshot whose single layer is `tar` (gzipped here, digest computed honestly) straight into the
 * store, as a tampered or hostile store would hold it. Returns the manifest.
 */
export async function plantSnapshot(store: DirectoryStore, tar: Buffer, gz: Buffer = gzipSync(tar)): Promise<Manifest> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const hex = createHash('sha256').update(gz).digest('hex');
  await mkdir(`${store.blobs.root}/sha256`, { recursive: true });
  await writeFile(store.blobs.pathOf(`sha256:${hex}`), gz);
  const manifest: Manifest = {
    formatVersion: 1,
    id: newSnapshotId(),
    parent: null,
    lineage: 'hostile',
    kind: 'workspace',
    createdAt: new Date().toISOString(),
    layers: [{ digest: `sha256:${hex}`, compressedBytes: gz.length, uncompressedBytes: tar.length, fileCount: 1, codec: 'gzip', delta: false }],
    rolloutIds: [],
    toolVersion: 'test',
  };
  await store.manifests.write(manifest);
  return manifest;
}
