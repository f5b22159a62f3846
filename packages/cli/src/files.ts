/** The site folder: every file under it, and their SHA-256, hashed a few at a time. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deployMessages } from '../../contracts/src/messages/deploys.js';

export interface SiteFile extends ListedFile {
  /** Set once known (the hash cache, or hashed): listFiles leaves it empty. */
  sha256: string;
  /**
   * The bytes hashed, kept for the upload (a small file, up to KEPT_BYTES for all of them): sent
   * without reading the file again.
   */
  bytes?: Buffer;
}

/** Never part of a site: version control, dependency folders and the CLI's own link (link.ts). */
const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules', '.sitehall', '__MACOSX']);
/**
 * A hidden name (a leading dot) is left out unless asked for (`--include-hidden`), as Netlify's CLI
 * does: a folder deployed as it is on disk may hold `.env`, `.npmrc` or `.aws/` with secrets, and an
 * approved site serves every file it has (docs/decisions/deploys.md "Hidden files stay home").
 * `.well-known` is a site's own (security.txt, app links) and always goes.
 */
const isHidden = (name: string) => name.startsWith('.') && name !== '.well-known';

/**
 * Windows' folder litter, which the server drops from every upload (server/src/ingest/names.ts
 * `isJunk`; `.DS_Store` and `._name` files are hidden names here already): never listed, so a
 * folder holding only a Thumbs.db is empty here as it is there.
 */
const isJunkFile = (name: string) =>
  (name.length === 9 || name.length === 11) &&
  (name.toLowerCase() === 'thumbs.db' || name.toLowerCase() === 'desktop.ini');

/** Whether a folder of this name is left out of every deploy (SKIPPED_FOLDERS). */
export const isSkippedFolder = (name: string) => SKIPPED_FOLDERS.has(name);

/**
 * Whether a path (relative, `/`-separated) is left out of a deploy's listing: under a skipped
 * folder, or hidden itself or under a hidden folder unless `includeHidden` (the watch's check of a
 * path an event named, watch.ts; a skipped folder's own name is checked where it is known to be one).
 */
export function isLeftOut(rel: string, includeHidden: boolean): boolean {
  const parts = rel.split('/');
  for (let i = 0; i < parts.length; i++) {
    if (i < parts.length - 1 && SKIPPED_FOLDERS.has(parts[i]!)) return true;
    if (i === parts.length - 1 && isJunkFile(parts[i]!)) return true;
    if (!includeHidden && isHidden(parts[i]!)) return true;
  }
  return false;
}

export interface ListedFile {
  path: string;
  file: string;
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
}

/**
 * Every regular file under root, sorted by path, the hidden names left out (`hidden`: a file's
 * path, or a folder's with a slash; none when `includeHidden`), the symbolic links (`links`, a
 * link to a folder with a slash) and the other kinds that are neither files nor folders (`special`:
 * FIFOs, sockets, devices), which are never sent: a link may point out of the folder (to
 * `~/.ssh`), and a web upload refuses them too (docs/decisions/deploys.md "Links stay home"). A
 * link that can't be followed (a loop, a path through a file, a folder that can't be entered) is
 * a link left out like any other, not a failure of the deploy (main.ts says each kind left out).
 * Synchronous on purpose: the CLI
 * has nothing else to do meanwhile, and a sync stat costs a few microseconds where an awaited one
 * costs a round trip through libuv's thread pool (5,000 files: ~15 ms against ~300 ms).
 */
export function listFiles(
  root: string,
  opts: { includeHidden?: boolean } = {},
): SiteFile[] & { hidden: string[]; links: string[]; special: string[] } {
  const out: SiteFile[] = [];
  const hidden: string[] = [];
  const links: string[] = [];
  const special: string[] = [];
  function walk(dir: string, prefix: string) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const isDir = e.isDirectory();
      const isFile = !isDir && e.isFile();
      const name = e.name;
      // The folder's own path and a separator: path.join would normalise each of thousands again.
      const file = dir + path.sep + name;
      const rel = prefix ? `${prefix}/${name}` : name;
      if (isDir ? SKIPPED_FOLDERS.has(name) : isJunkFile(name)) continue;
      if (!opts.includeHidden && isHidden(name)) {
        hidden.push(isDir ? `${rel}/` : rel);
        continue;
      }
      if (!isDir && !isFile) {
        if (e.isSymbolicLink()) {
          // A link to a folder is named as one (with a slash); one that leads nowhere as a file.
          links.push(linksToFolder(file) ? `${rel}/` : rel);
        } else {
          special.push(rel);
        }
        continue;
      }
      if (isDir) {
        walk(file, rel);
      } else {
        // Gone since the listing (a build still writing): left out, as if listed a moment later.
        const st = fs.statSync(file, { throwIfNoEntry: false });
        if (st)
          out.push({
            path: rel,
            file,
            size: st.size,
            mtimeMs: st.mtimeMs,
            ino: st.ino,
            ctimeMs: st.ctimeMs,
            sha256: '',
          });
      }
    }
  }
  // Without a trailing separator (a root of '/' keeps its own).
  walk(root.length > 1 && root.endsWith(path.sep) ? root.slice(0, -1) : root, '');
  return Object.assign(
    out.sort((a, b) => (a.path < b.path ? -1 : 1)),
    { hidden: hidden.sort(), links: links.sort(), special: special.sort() },
  );
}

/**
 * Whether a symbolic link leads to a folder. Only the link's name depends on it, so whatever keeps
 * it from being followed (a loop: ELOOP; a path through a file: ENOTDIR; a folder it may not enter:
 * EACCES; gone) makes it a link to no folder, never an error: the link is not sent either way.
 */
function linksToFolder(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Paths of printable ASCII (most sites' every path): NFC already, nothing to normalise. */
const PLAIN = /^[\x20-\x7e]*$/;

/** Paths of printable ASCII without a capital letter: the server's key for them is themselves. */
const PLAIN_LOWER = /^[\x20-\x40\x5b-\x7e]*$/;

/** A path in NFC, as the server keeps it (printable ASCII as it is, without normalising). */
export const nfc = (name: string) => (PLAIN.test(name) ? name : name.normalize('NFC'));

/**
 * Two names of the folder that are one name in NFC, or differ only in case, as the server keeps
 * and compares names (「存在重复或仅大小写不同的文件名」, server/src/ingest/names.ts `EntryTree`):
 * refused before anything is read or sent. The CLI keys its manifest by the NFC path, so `café.txt`
 * in NFC beside `café.txt` in NFD (two files on Linux) became one entry: the server never saw the
 * pair to refuse it, a first deploy sent one of the two, and a redeploy on a base record counted
 * the path twice and never sent a removal (docs/decisions/deploys.md "Names equal in NFC"). Names
 * that differ only in case were hashed and uploaded, then refused by the server at the finish.
 */
export class NameClash extends Error {}

/**
 * Refuses the site's file paths (relative, `/`-separated, as listed: each once) when two files,
 * two folders, or a file and a folder are the same name in NFC and lower case (the server's key),
 * naming both (a folder with a slash). Each folder is looked at once, however many files it holds.
 */
export function refuseNameClashes(paths: readonly string[]): void {
  // Printable ASCII without capitals (most sites' every path): each its own key already, and
  // distinct as listed, so nothing can clash.
  if (paths.every((p) => PLAIN_LOWER.test(p))) return;
  /** key → the name as listed, a folder's with a slash */
  const seen = new Map<string, string>();
  const folders = new Set<string>();
  const key = (name: string) => nfc(name).toLowerCase();
  const clash = (a: string, b: string) => {
    const [first, second] = [a, b].sort();
    // The same in NFC: the Unicode forms are what differs; else the case is.
    const form = nfc(a.replace(/\/$/, '')) === nfc(b.replace(/\/$/, ''));
    return new NameClash(
      (form ? deployMessages.nameClashForm : deployMessages.nameClashCase)
        .replace('{first}', first!)
        .replace('{second}', second!),
    );
  };
  for (const p of paths) {
    // The file's folders, deepest first, up to one seen already (its parents were seen with it).
    for (let cut = p.lastIndexOf('/'); cut > 0; cut = p.lastIndexOf('/', cut - 1)) {
      const folder = p.slice(0, cut);
      if (folders.has(folder)) break;
      folders.add(folder);
      const folderKey = key(folder);
      const other = seen.get(folderKey);
      if (other === undefined) seen.set(folderKey, `${folder}/`);
      else throw clash(other, `${folder}/`);
    }
    const fileKey = key(p);
    const other = seen.get(fileKey);
    if (other !== undefined) throw clash(other, p);
    seen.set(fileKey, p);
  }
}

/** Files up to this size are hashed from one read: a stream per small file costs more than its bytes. */
const WHOLE_READ_BYTES = 1024 * 1024;
/** Small files hashed between two turns of the event loop (hashFiles). */
const SMALL_FILES_PER_TURN = 64;
/** Small files' bytes kept from their hashing for the upload, at most this much in all. */
const KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Sets the SHA-256 of each of `files` (the listed files at `indexes`), calling onDone after each.
 * A small file (≤ WHOLE_READ_BYTES as listed) is read synchronously in one read: the CLI has
 * nothing else to do meanwhile, and an awaited readFile is four round trips through libuv's thread
 * pool (open, fstat, read, close), each a wake-up of a pool thread: 5,000 files of 2 KB took
 * ≈500 ms that way and ≈170 ms this way on one core (docs/benchmarks.md "The CLI reads a small
 * file once"). The event loop gets a turn every SMALL_FILES_PER_TURN files (progress,
 * signals). Larger files are read into one buffer, HASH_CONCURRENCY at a time, meanwhile. A small
 * file's bytes are kept for its upload while they come to at most KEPT_BYTES in all: a first deploy
 * then reads each file once, not again for the upload (through a ReadStream, several round trips
 * of the pool per file).
 */
export async function hashFiles(
  files: readonly SiteFile[],
  indexes: readonly number[],
  onDone?: (done: number) => void,
): Promise<void> {
  const small = indexes.filter((i) => files[i]!.size <= WHOLE_READ_BYTES);
  const large = indexes.filter((i) => files[i]!.size > WHOLE_READ_BYTES);
  let done = 0;
  const tick = () => onDone?.(++done);
  const largeHashed = mapLimit(large, HASH_CONCURRENCY, async (i) => {
    const f = files[i]!;
    f.sha256 = await sha256Of(f.file, f.size);
    tick();
  });
  // Seen by the catch below only once the small files are done: not an unhandled rejection meanwhile.
  largeHashed.catch(() => undefined);
  let kept = 0;
  for (let k = 0; k < small.length; k++) {
    const f = files[small[k]!]!;
    const read = readSmall(f.file, f.size);
    if (read) {
      f.sha256 = createHash('sha256').update(read).digest('hex');
      // Only bytes of the size listed, which the upload announces: a file that changed size since
      // its listing is read again when sent, and the change is found there (api.ts, sendFile).
      if (read.length === f.size && kept + f.size <= KEPT_BYTES) {
        f.bytes = read;
        kept += f.size;
      }
    } else {
      f.sha256 = await sha256Of(f.file);
    }
    tick();
    if (k % SMALL_FILES_PER_TURN === SMALL_FILES_PER_TURN - 1) await new Promise(setImmediate);
  }
  await largeHashed;
}

/**
 * A read's error with the file it was reading: Node names the path of a failed open, not of a
 * failed read (EISDIR, EIO), and the CLI says which file (fs-errors.ts).
 */
function naming(err: unknown, file: string): unknown {
  const e = err as NodeJS.ErrnoException | null;
  if (e instanceof Error && typeof e.code === 'string' && e.path === undefined) e.path = file;
  return err;
}

/**
 * The bytes of a file listed at `size` bytes (≤ WHOLE_READ_BYTES), read synchronously: open, a
 * read of up to one byte more than listed, close. Null when it grew past that (hashed then as a
 * large file is); a file that changed size otherwise is read as it is now.
 */
function readSmall(file: string, size: number): Buffer | null {
  const buffer = Buffer.allocUnsafe(size + 1);
  const fd = fs.openSync(file, 'r');
  let length = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) return null;
    }
  } catch (err) {
    throw naming(err, file);
  } finally {
    fs.closeSync(fd);
  }
  return buffer.subarray(0, length);
}

/** The file's SHA-256; `size` (from listFiles) picks one read or a loop of reads. */
export async function sha256Of(file: string, size = Number.POSITIVE_INFINITY): Promise<string> {
  try {
    return await hashOfFile(file, size);
  } catch (err) {
    throw naming(err, file);
  }
}

async function hashOfFile(file: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size <= WHOLE_READ_BYTES) {
    const bytes = await fs.promises.readFile(file);
    // Still small (the file may have changed since it was listed): hashed as read.
    if (bytes.length <= WHOLE_READ_BYTES) return hash.update(bytes).digest('hex');
  }
  // A large file: reads into one buffer, each hashed before the next is asked for. A ReadStream
  // piped into the hash allocated a buffer per read and went through the stream machinery for
  // each: a 25 MB bundle took 20-30 ms to hash that way, 17 ms this way (docs/benchmarks.md
  // "A few large files").
  const buffer = Buffer.allocUnsafe(WHOLE_READ_BYTES);
  const handle = await fs.promises.open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** Runs `work` on every item, `limit` at a time, calling onDone after each. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  onDone?: (done: number) => void,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
      onDone?.(++done);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

/** Files read and hashed at once: enough to keep the disk and every core busy. */
export const HASH_CONCURRENCY = Math.max(4, Math.min(16, os.availableParallelism() * 2));
