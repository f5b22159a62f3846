/**
 * The local hash cache (docs/decisions/deploys.md "CLI hash cache"): a file whose path, size, mtime and
 * inode are what they were when it was last hashed is not read again, as git's index does. Kept in
 * $XDG_CACHE_HOME/sitehall/<hash of the site folder>.json (~/.cache/...), written atomically;
 * a missing, unreadable or corrupt cache is ignored (every file is hashed).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What identifies a file's contents without reading them. */
export interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * Entries whose mtime is this close to (or after) the cache's write time are hashed again, when
 * the mtime is a whole second (a file system that keeps seconds, or FAT's two): a change within
 * that much of the last could keep the same stamp.
 */
export const RACY_MS = 2_000;
/**
 * The same for an mtime finer than a second (ext4, XFS, btrfs, APFS, NTFS): their stamps come
 * from a clock that ticks every few milliseconds (Linux: 1–10 ms; Windows: 15.6 ms), so a later
 * change can share a stamp only within a tick. A build that writes its files and deploys them a
 * second later then finds them in the cache on its next deploy.
 */
export const FINE_RACY_MS = 100;
const VERSION = 1;

interface CacheFile {
  version: number;
  /** Date.now() when the cache was written. */
  written: number;
  /** path → [size, mtimeMs, ino, sha256] */
  entries: Record<string, [number, number, number, string]>;
}

export function cacheFile(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 32);
  return path.join(base, 'sitehall', `${key}.json`);
}

export class HashCache {
  private constructor(
    private readonly file: string,
    private readonly loaded: CacheFile | undefined,
  ) {}

  static load(dir: string, env: NodeJS.ProcessEnv = process.env): HashCache {
    const file = cacheFile(dir, env);
    let loaded: CacheFile | undefined;
    try {
      const data = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheFile;
      if (
        data &&
        data.version === VERSION &&
        Number.isFinite(data.written) &&
        typeof data.entries === 'object' &&
        data.entries !== null
      ) {
        loaded = data;
      }
    } catch {
      // No cache yet, or unreadable or corrupt: every file is hashed.
    }
    return new HashCache(file, loaded);
  }

  /** The remembered SHA-256 if the file is unchanged and not racy, else undefined. */
  lookup(f: FileStamp): string | undefined {
    const c = this.loaded;
    const e = c ? Object.hasOwn(c.entries, f.path) && c.entries[f.path] : undefined;
    if (!c || !Array.isArray(e) || e.length !== 4) return undefined;
    const [size, mtimeMs, ino, sha256] = e;
    if (size !== f.size || mtimeMs !== f.mtimeMs || ino !== f.ino) return undefined;
    // Modified within the clock's resolution of the cache write: a later change could keep the
    // same mtime and size, so the entry proves nothing.
    const racy = Number.isInteger(mtimeMs / 1000) ? RACY_MS : FINE_RACY_MS;
    if (mtimeMs >= c.written - racy) return undefined;
    if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
    return sha256;
  }

  /** Replaces the cache with these files (so deleted files drop out); failures are ignored. */
  save(files: readonly (FileStamp & { sha256: string })[]): void {
    const data: CacheFile = { version: VERSION, written: Date.now(), entries: {} };
    for (const f of files) data.entries[f.path] = [f.size, f.mtimeMs, f.ino, f.sha256];
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(temp, JSON.stringify(data));
      fs.renameSync(temp, this.file);
    } catch {
      // A cache that cannot be written only costs the next deploy its hashing time.
      fs.rmSync(temp, { force: true });
    }
  }
}
