/**
 * The site folder as `sitehall deploy --watch` keeps it (docs/decisions/deploys.md "Watching a
 * folder"): its files as listed once, then brought up to date from the file system's change
 * events, each changed path looked at again and hashed; nothing else is listed, stat'ed or read.
 * A redeploy then costs what changed, not the folder (and not a Node process's start).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  hashFiles,
  isLeftOut,
  isSkippedFolder,
  listFiles,
  nfc,
  refuseNameClashes,
  type SiteFile,
} from './files.js';

/**
 * How long the folder must be still before its changes are deployed: an editor's save (a write, or
 * a temporary file renamed over the old one) is one burst of events within a few milliseconds; a
 * build writing many files keeps the folder busy longer, and what it changes meanwhile waits for
 * the deploy under way to end and then goes in one more (main.ts, watchFolder).
 */
export const WATCH_QUIET_MS = 40;
/** While the folder is gone (a build that removes it and writes it again), how often it is looked for. */
const GONE_POLL_MS = 100;
/** How long the folder may stay gone before the watch gives up. */
export const GONE_MAX_MS = 60_000;

export class WatchedFolder {
  /** path (relative, `/`-separated, as listed) → the file */
  readonly files = new Map<string, SiteFile>();
  /** Paths an event named since the last refresh; '' for the whole folder (an event without a name). */
  readonly #dirty = new Set<string>();
  #watcher: fs.FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #settled: (() => void) | undefined;
  #failed: ((err: Error) => void) | undefined;
  /** The watch's failure, when it came before anyone listened for it. */
  #error: Error | undefined;
  /** Looks for the folder while it is gone (#awaitFolder). */
  #poll: NodeJS.Timeout | undefined;
  /** The folder's parent, watched for the folder's own removal or replacement (#awaitFolder). */
  #parentWatcher: fs.FSWatcher | undefined;

  constructor(
    readonly root: string,
    private readonly includeHidden: boolean,
    private readonly quietMs = WATCH_QUIET_MS,
    private readonly goneMaxMs = GONE_MAX_MS,
  ) {}

  /** Whether an event came since the last refresh. */
  get dirty(): boolean {
    return this.#dirty.size > 0;
  }

  /**
   * Starts collecting the folder's events, before the deploy lists it, so that nothing changed
   * while it lists, hashes and sends is missed. The watch does not keep the process alive until
   * `listen` (a deploy that fails before then exits as it would without --watch).
   */
  start(): void {
    this.#watcher = fs.watch(this.root, { recursive: true }, (_event, name) => {
      this.#dirty.add(name === null ? '' : String(name).split(path.sep).join('/'));
      if (!statOf(this.root)?.isDirectory()) this.#awaitFolder();
      else this.#changed();
    });
    this.#watcher.on('error', (err) => this.#fail(err));
    // The folder itself removed (a build that deletes its output folder first), or removed and made
    // again at once (its inode number reused, often): the system's watch of the old folder ends
    // without an error or another event, nothing would hold the process, and the new folder would
    // not be watched. Its parent says so (docs/decisions/deploys.md "Watching a folder").
    const base = path.basename(this.root);
    try {
      this.#parentWatcher = fs.watch(path.dirname(this.root), (event, name) => {
        if (event === 'rename' && name !== null && String(name) === base) this.#awaitFolder();
      });
      this.#parentWatcher.on('error', () => this.#parentWatcher?.close());
    } catch {
      // A parent that can't be watched (no permission): the folder's own events still count.
      this.#parentWatcher = undefined;
    }
    if (!this.#settled) {
      this.#watcher.unref();
      this.#parentWatcher?.unref();
    }
  }

  /** A change: the deploy runs once the folder has been still for the quiet time. */
  #changed(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#settled?.();
    }, this.quietMs).unref();
  }

  #fail(err: Error): void {
    this.#error = err;
    this.#failed?.(err);
  }

  /**
   * The folder is gone: it is looked for until it is back, then watched again and taken whole (its
   * files may all be new), or the watch fails after GONE_MAX_MS.
   */
  #awaitFolder(): void {
    if (this.#poll) return;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#parentWatcher?.close();
    this.#parentWatcher = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const since = Date.now();
    this.#poll = setInterval(() => {
      if (statOf(this.root)?.isDirectory()) {
        clearInterval(this.#poll);
        this.#poll = undefined;
        this.#dirty.add('');
        try {
          this.start();
        } catch (err) {
          this.#fail(err as Error);
          return;
        }
        this.#changed();
      } else if (Date.now() - since > this.goneMaxMs) {
        clearInterval(this.#poll);
        this.#poll = undefined;
        this.#fail(new Error(`目录已被删除：${this.root}`));
      }
    }, GONE_POLL_MS);
    // Until the deploy listens, the watch keeps nothing alive (start's rule).
    if (!this.#settled) this.#poll.unref();
  }

  /** The files as the deploy listed them (their hashes may still be on their way). */
  adopt(listed: readonly SiteFile[]): void {
    for (const f of listed) this.files.set(f.path, f);
  }

  /**
   * From now on `onSettled` runs once the folder has been still for the quiet time after a change
   * (at once when changes are waiting already), and `onError` if the watch fails (the folder
   * removed, the system's watch limit reached); the watch keeps the process alive.
   */
  listen(onSettled: () => void, onError: (err: Error) => void): void {
    this.#settled = onSettled;
    this.#failed = onError;
    this.#watcher?.ref();
    this.#parentWatcher?.ref();
    this.#poll?.ref();
    if (this.#error) onError(this.#error);
    else if (this.dirty && !this.#timer) setImmediate(onSettled);
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#poll) clearInterval(this.#poll);
    this.#watcher?.close();
    this.#parentWatcher?.close();
  }

  /**
   * Looks again at every path an event named (a file hashed again whatever its stamp says: the
   * event is the proof it was written; a folder listed again with its files hashed; a path gone,
   * or no longer a file or a folder, dropped with what was under it), and returns how many files
   * were hashed. Hidden and skipped names stay out, as in a deploy's listing. False when a file
   * went between its stat and its read: the whole folder is then to be looked at again.
   */
  async refresh(): Promise<boolean> {
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    const toHash: SiteFile[] = [];
    for (const rel of dirty.includes('') ? [''] : dirty) {
      if (rel !== '' && isLeftOut(rel, this.includeHidden)) continue;
      const abs = rel === '' ? this.root : path.join(this.root, ...rel.split('/'));
      const st = statOf(abs);
      // A file where a folder on this path was listed: Node's watch can report only the new file
      // inside it (a file removed and a folder of its name made at once: seen on Linux).
      for (let at = rel.indexOf('/'); at > 0; at = rel.indexOf('/', at + 1))
        this.files.delete(rel.slice(0, at));
      this.#drop(rel);
      if (st?.isFile()) {
        const f = {
          path: rel,
          file: abs,
          size: st.size,
          mtimeMs: st.mtimeMs,
          ino: st.ino,
          ctimeMs: st.ctimeMs,
          sha256: '',
        };
        this.files.set(rel, f);
        toHash.push(f);
        continue;
      }
      if (!st?.isDirectory() || (rel !== '' && isSkippedFolder(path.basename(abs)))) continue;
      for (const f of listFiles(abs, { includeHidden: this.includeHidden })) {
        const listed = { ...f, path: rel === '' ? f.path : `${rel}/${f.path}` };
        this.files.set(listed.path, listed);
        toHash.push(listed);
      }
    }
    // Gone since it was named (a temporary file renamed away): dropped, as a listing a moment later would.
    const present = toHash.filter((f) => {
      const there = statOf(f.file)?.isFile();
      if (!there) this.files.delete(f.path);
      return there;
    });
    try {
      await hashFiles(
        present,
        present.map((_, i) => i),
      );
      return true;
    } catch (err) {
      // A file removed between its stat and its read.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.#dirty.add('');
      return false;
    }
  }

  /** Forgets `rel` and everything under it ('' is the whole folder). */
  #drop(rel: string): void {
    if (rel === '') {
      this.files.clear();
      return;
    }
    // A file listed here has nothing under it.
    if (this.files.delete(rel)) return;
    const prefix = `${rel}/`;
    for (const p of this.files.keys()) if (p.startsWith(prefix)) this.files.delete(p);
  }

  /**
   * The folder's manifest: NFC path → SHA-256. Throws NameClash (files.ts) when two of its paths
   * are one in NFC: in the map they would be one entry, and a file would silently be left out of
   * the version. The watch says so and waits for the next change, as for any refused deploy
   * (main.ts, watchFolder).
   */
  manifest(): Map<string, string> {
    const hashed = [...this.files.values()].filter((f) => f.sha256);
    refuseNameClashes(hashed.map((f) => f.path));
    const out = new Map<string, string>();
    for (const f of hashed) out.set(nfc(f.path), f.sha256);
    return out;
  }
}

/** A path's own facts (a symbolic link is not followed), or undefined when there is nothing there. */
function statOf(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs);
  } catch (err) {
    // Gone, or a folder on its way replaced by a file.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** The changes from a deployed manifest to this one: a new or changed path's SHA-256, null for one gone. */
export function changesBetween(
  deployed: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const [name, sha256] of now) if (deployed.get(name) !== sha256) changes[name] = sha256;
  for (const name of deployed.keys()) if (!now.has(name)) changes[name] = null;
  return changes;
}
