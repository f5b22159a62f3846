/**
 * The local hash cache (docs/decisions/deploys.md "CLI hash cache"): a file whose path, size, mtime,
 * inode and ctime are what they were when it was last hashed is not read again, as git's index does. Kept in
 * $XDG_CACHE_HOME/sitehall/<hash of the site folder>.hashes (~/.cache/...), rewritten atomically or
 * appended to; a missing, unreadable or corrupt cache (or line) is ignored (those files are hashed).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeFolders } from './fs-errors.js';

/** What identifies a file's contents without reading them. */
export interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /**
   * When the inode last changed: a write sets it whatever mtime a tool then sets (a reproducible
   * build pinning mtimes, `cp -p`, `touch -d`), and nothing but the system can set it back.
   */
  ctimeMs: number;
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
/**
 * The cache's first line. Then one line per file hashed: path, size, mtime, inode, ctime, SHA-256
 * and the time the line was written (Date.now()), separated by NULs (version 2 had no ctime: its
 * lines are read as none, and every file is hashed once). A deploy that hashed a few files
 * appends their lines (a later line wins), and the whole file is rewritten with the files of that
 * pass only when it holds more than twice as many lines as the folder has files (deleted and
 * changed files' old lines). A JSON object of 5,000 entries cost a one-file redeploy its parse, an
 * array per entry and a rewrite of all of them (docs/benchmarks.md "Redeploys in proportion to the
 * change"). Only whole lines count: a line cut short by a crash is not one.
 */
const HEADER = 'sitehall-cache 3\n';
const SHA256_HEX = /^[0-9a-f]{64}$/;

export function cacheFile(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 32);
  return path.join(base, 'sitehall', `${key}.hashes`);
}

/** One line of the cache file. */
function lineOf(f: FileStamp & { sha256: string }, written: number): string {
  return `${f.path}\0${f.size}\0${f.mtimeMs}\0${f.ino}\0${f.ctimeMs}\0${f.sha256}\0${written}\n`;
}

export class HashCache {
  private constructor(
    private readonly file: string,
    /** path → the line after the path (parsed when looked up) */
    private readonly entries: Map<string, string> | undefined,
    /** Lines in the file (more than `entries` when a path was written down again). */
    private readonly lines: number,
  ) {}

  static load(dir: string, env: NodeJS.ProcessEnv = process.env): HashCache {
    const file = cacheFile(dir, env);
    let entries: Map<string, string> | undefined;
    let lines = 0;
    try {
      const text = fs.readFileSync(file, 'utf8');
      if (text.startsWith(HEADER)) {
        entries = new Map();
        for (let at = HEADER.length; ; ) {
          const end = text.indexOf('\n', at);
          if (end < 0) break;
          const nul = text.indexOf('\0', at);
          if (nul > at && nul < end) entries.set(text.slice(at, nul), text.slice(nul + 1, end));
          lines++;
          at = end + 1;
        }
      }
    } catch {
      // No cache yet, or unreadable: every file is hashed.
    }
    return new HashCache(file, entries, lines);
  }

  /** The remembered SHA-256 if the file is unchanged and not racy, else undefined. */
  lookup(f: FileStamp): string | undefined {
    const line = this.entries?.get(f.path);
    if (line === undefined) return undefined;
    const e = line.split('\0');
    if (e.length !== 6) return undefined;
    const [size, mtimeMs, ino, ctimeMs, written] = [
      Number(e[0]),
      Number(e[1]),
      Number(e[2]),
      Number(e[3]),
      Number(e[5]),
    ];
    const sha256 = e[4]!;
    if (
      size !== f.size ||
      mtimeMs !== f.mtimeMs ||
      ino !== f.ino ||
      ctimeMs !== f.ctimeMs ||
      !Number.isFinite(written)
    )
      return undefined;
    // Modified within the clock's resolution of the line's writing: a later change could keep the
    // same mtime and size, so the entry proves nothing.
    const racy = Number.isInteger(mtimeMs / 1000) ? RACY_MS : FINE_RACY_MS;
    if (mtimeMs >= written - racy) return undefined;
    if (!SHA256_HEX.test(sha256)) return undefined;
    return sha256;
  }

  /** Replaces the cache with these files (a watch's end: watch.ts); failures are ignored. */
  rewrite(files: readonly (FileStamp & { sha256: string })[]): void {
    this.#writeAll(files, Date.now());
  }

  /**
   * Writes down these files: appends the lines of those `hashed` now when the file stays small,
   * else replaces the cache with `files` (so deleted files drop out); failures are ignored.
   */
  save(files: readonly (FileStamp & { sha256: string })[], hashed: readonly number[] = []): void {
    const at = Date.now();
    if (this.entries && this.lines + hashed.length <= 2 * files.length) {
      if (hashed.length === 0) return;
      try {
        fs.appendFileSync(this.file, hashed.map((i) => lineOf(files[i]!, at)).join(''));
      } catch (err) {
        // A cache that cannot be written only costs the next deploy its hashing time.
        notSaved(this.file, err);
      }
      return;
    }
    this.#writeAll(files, at);
  }

  #writeAll(files: readonly (FileStamp & { sha256: string })[], at: number): void {
    writeAtomically(this.file, () => HEADER + files.map((f) => lineOf(f, at)).join(''));
  }
}

/**
 * Replaces `file` with `text()` (a temporary file beside it, then a rename), ignoring every
 * failure: the hash cache and the base record (base.ts) only save the next deploy work, and a
 * deploy never fails for them. These writes run inside a request's callbacks (main.ts writes the
 * cache while the server reads the manifest), where a throw would end the process with a stack
 * trace and leave the deploy open on the server: before, a cache folder under a file
 * (XDG_CACHE_HOME naming one) did, as the removal of the temporary file after a failed write threw
 * ENOTDIR, which `force` does not ignore (docs/decisions/deploys.md "CLI hash cache").
 */
export function writeAtomically(file: string, text: () => string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    makeFolders(path.dirname(file), 0o700);
    fs.writeFileSync(temp, text());
    fs.renameSync(temp, file);
  } catch (err) {
    notSaved(file, err);
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // Nothing was written there, or nothing can be removed: either way nothing to do.
    }
  }
}

let notSavedSaid = false;

/**
 * Says once per run, on standard error, that the cache (`file`, or a file beside it) could not be
 * written, with the system's code (ENOTDIR, EACCES, ENOSPC); never throws.
 */
function notSaved(file: string, err: unknown): void {
  if (notSavedSaid) return;
  notSavedSaid = true;
  try {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    const why = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
    console.error(`提示：无法保存本地缓存 ${path.dirname(file)}（${why}），不影响本次部署`);
  } catch {
    // Standard error closed: nothing to say it on.
  }
}
