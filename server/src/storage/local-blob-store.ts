/**
 * BlobStore on the local file system: DATA_DIR/blobs/aa/bb/<hash>, variants beside their blob as
 * <hash>.<variant>, writes in progress under DATA_DIR/blobs/.tmp. A blob only ever appears under
 * its name by rename(2) of a complete (and, by default, fsynced) temp file, so readers never see
 * half a file, and a crash leaves at worst a temp file for removeStaleTemp.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertByteRange,
  assertSha256,
  assertVariantName,
  BlobNotFound,
  type BlobStore,
  type ByteRange,
  HashingMeter,
  isSha256Hex,
} from './blob-store.js';

export interface LocalBlobStoreOptions {
  /**
   * fsync each blob before it gets its name (default true). Without it, a power cut soon after a
   * write can leave an empty or truncated file under a valid hash, which would then be served as
   * the site's content; tests turn it off for speed.
   */
  durable?: boolean;
  /** Read chunk size: large chunks mean fewer read calls for big files. */
  readChunkBytes?: number;
}

const FAN_OUT = /^[0-9a-f]{2}$/;
const DEFAULT_READ_CHUNK = 128 * 1024;
/** Blobs `sizes` stats before it lets other work run (a few ms at most). */
const SYNC_STATS_PER_TURN = 500;

export class LocalBlobStore implements BlobStore {
  readonly #root: string;
  readonly #tmpDir: string;
  readonly #durable: boolean;
  readonly #readChunk: number;
  #tmpReady: Promise<unknown> | null = null;
  /** Temp names: this process and store, then a count (a random name per file cost a deploy's CPU). */
  readonly #tmpPrefix = `${process.pid}-${randomBytes(6).toString('hex')}`;
  #tmpCount = 0;
  /** Blob folders known to exist (at most 65,536: two levels of two hex digits). */
  readonly #dirs = new Set<string>();

  /** `root` is the blobs folder itself, normally DATA_DIR/blobs (see inDataDir). */
  constructor(root: string, opts: LocalBlobStoreOptions = {}) {
    this.#root = path.resolve(root);
    this.#tmpDir = path.join(this.#root, '.tmp');
    this.#durable = opts.durable ?? true;
    this.#readChunk = opts.readChunkBytes ?? DEFAULT_READ_CHUNK;
  }

  static inDataDir(dataDir: string, opts?: LocalBlobStoreOptions): LocalBlobStore {
    return new LocalBlobStore(path.join(dataDir, 'blobs'), opts);
  }

  async put(source: Readable): Promise<{ sha256: string; size: number }> {
    const meter = new HashingMeter();
    const tmp = await this.#tempFile();
    try {
      await pipeline(source, meter, fs.createWriteStream(tmp, { flags: 'wx', flush: this.#durable }));
      const { sha256, size } = meter.result();
      await this.#publish(tmp, this.#blobPath(sha256), true);
      return { sha256, size };
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
  }

  async putFile(filePath: string, sha256: string): Promise<void> {
    assertSha256(sha256);
    const target = this.#blobPath(sha256);
    if (await statSize(target)) {
      await fsp.rm(filePath, { force: true });
      return;
    }
    if (this.#durable) await fsyncFile(filePath);
    try {
      await this.#renameInto(filePath, target);
      return;
    } catch (error) {
      if (errorCode(error) !== 'EXDEV') throw error;
    }
    // Another file system: copy into our temp folder (same file system as the target), then rename.
    const tmp = await this.#tempFile();
    try {
      await fsp.copyFile(filePath, tmp);
      if (this.#durable) await fsyncFile(tmp);
      await this.#publish(tmp, target, true);
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
    await fsp.rm(filePath, { force: true });
  }

  async putBytes(bytes: Buffer, sha256: string): Promise<void> {
    assertSha256(sha256);
    const target = this.#blobPath(sha256);
    // One write and (durable) one fsync of a new temp file, then its name: no staged file to open
    // again for the fsync, as putFile must, and no stat first (a missing blob, the usual case
    // here, costs an exception per file): a blob stored meanwhile is replaced by the same bytes,
    // in one rename, so a reader sees the one or the other, never neither.
    const tmp = await this.#tempFile();
    try {
      await fsp.writeFile(tmp, bytes, { flag: 'wx', flush: this.#durable });
      await this.#renameInto(tmp, target);
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    assertSha256(sha256);
    if (range) assertByteRange(range);
    const file = await openOrNull(this.#blobPath(sha256));
    if (!file) throw new BlobNotFound(sha256);
    if (!range) return file.createReadStream({ highWaterMark: this.#readChunk });
    try {
      const { size } = await file.stat();
      if (range.start >= size) throw new RangeError(`Range starts past the end of blob ${sha256}`);
      return file.createReadStream({
        start: range.start,
        end: Math.min(range.end, size - 1),
        highWaterMark: this.#readChunk,
      });
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    assertSha256(sha256);
    return statSize(this.#blobPath(sha256));
  }

  /**
   * Synchronous stats, a batch per turn of the event loop: a local stat takes microseconds, while
   * an awaited one costs a round trip through libuv's thread pool (a digest deploy's start asks
   * about thousands of hashes).
   */
  async sizes(hashes: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < hashes.length; i++) {
      if (i > 0 && i % SYNC_STATS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const sha256 = hashes[i]!;
      assertSha256(sha256);
      let info: fs.Stats | undefined;
      try {
        info = fs.statSync(this.#blobPath(sha256), { throwIfNoEntry: false });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      if (info?.isFile()) out.set(sha256, info.size);
    }
    return out;
  }

  async delete(sha256: string): Promise<void> {
    assertSha256(sha256);
    const blob = this.#blobPath(sha256);
    await fsp.rm(blob, { force: true });
    const dir = path.dirname(blob);
    const prefix = `${sha256}.`;
    for (const name of await readdirOrEmpty(dir)) {
      if (name.startsWith(prefix)) await fsp.rm(path.join(dir, name), { force: true });
    }
  }

  async *list(): AsyncIterable<string> {
    for (const a of await readdirOrEmpty(this.#root)) {
      if (!FAN_OUT.test(a)) continue;
      for (const b of await readdirOrEmpty(path.join(this.#root, a))) {
        if (!FAN_OUT.test(b)) continue;
        for (const name of await readdirOrEmpty(path.join(this.#root, a, b))) {
          if (name.startsWith(a + b) && isSha256Hex(name)) yield name;
        }
      }
    }
  }

  async putVariant(sha256: string, variant: string, source: Readable): Promise<void> {
    assertSha256(sha256);
    assertVariantName(variant);
    if (!(await statSize(this.#blobPath(sha256)))) {
      source.destroy();
      throw new BlobNotFound(sha256);
    }
    const tmp = await this.#tempFile();
    try {
      await pipeline(source, fs.createWriteStream(tmp, { flags: 'wx', flush: this.#durable }));
      await this.#publish(tmp, this.#variantPath(sha256, variant), false);
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
    // The blob may have been deleted while the variant was written: no variant may outlive it.
    if (!(await statSize(this.#blobPath(sha256)))) {
      await fsp.rm(this.#variantPath(sha256, variant), { force: true });
      throw new BlobNotFound(sha256);
    }
  }

  async readVariant(sha256: string, variant: string): Promise<Readable | null> {
    assertSha256(sha256);
    assertVariantName(variant);
    const file = await openOrNull(this.#variantPath(sha256, variant));
    return file ? file.createReadStream({ highWaterMark: this.#readChunk }) : null;
  }

  async statVariant(sha256: string, variant: string): Promise<{ size: number } | null> {
    assertSha256(sha256);
    assertVariantName(variant);
    return statSize(this.#variantPath(sha256, variant));
  }

  /**
   * Removes temp files older than maxAgeMs, left by a crash mid-write. The age limit keeps writes
   * that are still running (in this or another process) safe.
   */
  /** Nothing is held open between calls. */
  async close(): Promise<void> {}

  async removeStaleTemp(maxAgeMs = 60 * 60_000): Promise<number> {
    let removed = 0;
    const cutoff = Date.now() - maxAgeMs;
    for (const name of await readdirOrEmpty(this.#tmpDir)) {
      const file = path.join(this.#tmpDir, name);
      const info = await fsp.stat(file).catch(() => null);
      if (info && info.mtimeMs < cutoff) {
        await fsp.rm(file, { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }

  #blobPath(sha256: string): string {
    return path.join(this.#root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  #variantPath(sha256: string, variant: string): string {
    return `${this.#blobPath(sha256)}.${variant}`;
  }

  async #tempFile(): Promise<string> {
    this.#tmpReady ??= fsp.mkdir(this.#tmpDir, { recursive: true }).catch((error: unknown) => {
      this.#tmpReady = null;
      throw error;
    });
    await this.#tmpReady;
    return path.join(this.#tmpDir, `${this.#tmpPrefix}-${(this.#tmpCount++).toString(36)}`);
  }

  /** Gives a finished temp file its name; with keepExisting, an existing blob wins (same bytes). */
  async #publish(tmp: string, target: string, keepExisting: boolean): Promise<void> {
    if (keepExisting && (await statSize(target))) {
      await fsp.rm(tmp, { force: true });
      return;
    }
    await this.#renameInto(tmp, target);
  }

  /**
   * Renames a file into the store, making its folder (blobs/aa/bb) the first time this store meets
   * it: a first deploy of 5,000 files spent about 0.8 s of its server time in mkdir calls for
   * folders that already existed. Nothing of ours removes these folders; should one go anyway
   * (removed by hand), the rename's ENOENT makes it again.
   */
  async #renameInto(from: string, to: string): Promise<void> {
    const dir = path.dirname(to);
    if (!this.#dirs.has(dir)) {
      await fsp.mkdir(dir, { recursive: true });
      this.#dirs.add(dir);
    }
    try {
      await fsp.rename(from, to);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      await fsp.mkdir(dir, { recursive: true });
      await fsp.rename(from, to);
    }
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

const isMissing = (error: unknown) => {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
};

async function statSize(file: string): Promise<{ size: number } | null> {
  try {
    const info = await fsp.stat(file);
    return info.isFile() ? { size: info.size } : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function openOrNull(file: string): Promise<fsp.FileHandle | null> {
  try {
    return await fsp.open(file, 'r');
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

async function fsyncFile(file: string): Promise<void> {
  // A read-only descriptor is enough for fsync on Linux, and works on read-only files.
  const handle = await fsp.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
