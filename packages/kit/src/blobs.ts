import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** An append-only writer of one blob; `close` makes everything written durable. */
export interface BlobWriter {
  write(chunk: Uint8Array): void;
  /** bytes accepted so far */
  readonly bytes: number;
  close(): Promise<void>;
}

/**
 * Where binary content lives (recordings now, media later). Keys are relative paths chosen by the
 * owning domain (`<domain>/<tenant>/<id>…`); they never come from clients.
 */
export interface BlobStore {
  /** Starts (or, after a crash, continues) a blob; appends go to its end. */
  append(key: string): BlobWriter;
  read(key: string, range?: { start: number; end?: number }): Readable;
  /** size in bytes, or null when the blob does not exist */
  size(key: string): Promise<number | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Blobs as files under a directory (the embedded default). */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
  }

  private file(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error(`invalid blob key ${key}`);
    return path.join(this.root, key);
  }

  append(key: string): BlobWriter {
    const file = this.file(key);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const stream = fs.createWriteStream(file, { flags: 'a' });
    let failure: Error | null = null;
    stream.on('error', (e) => { failure = e; });
    let bytes = 0;
    return {
      write(chunk) {
        bytes += chunk.byteLength;
        stream.write(chunk);
      },
      get bytes() { return bytes; },
      close: () => new Promise<void>((resolve, reject) => {
        if (failure) { reject(failure); return; }
        stream.end(() => {
          // fsync: a recording whose session says it ended must survive a crash that follows
          const fd = fs.openSync(file, 'r');
          try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
          if (failure) reject(failure); else resolve();
        });
      }),
    };
  }

  read(key: string, range?: { start: number; end?: number }): Readable {
    return fs.createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fsp.stat(this.file(key))).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.file(key), { force: true });
  }
}
