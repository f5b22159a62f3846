/**
 * Traces of files scanned before (context.ts FileTrace), kept by what decides a scan: the file's
 * path, type, bytes (SHA-256) and how much of it was read, and the check's options. A redeploy
 * that changes one file of thousands then scans one file: every other replays its trace, as long
 * as what it asked of the site (files it links to, scripts it includes) is answered alike
 * (analyze.ts). The most recently read are kept within a byte budget; nothing is stored on disk,
 * so a restart (and with it a change of the rules) starts empty.
 *
 * A trace is kept as its JSON text, as the worker wrote it: a check hands thousands of them to its
 * worker, and a string is copied to another thread at the cost of its bytes where a trace's
 * arrays and objects were cloned one by one (docs/benchmarks.md "Digest deploys", session 56).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Default budget: about 100,000 typical files' traces. */
export const TRACE_CACHE_BYTES = 32 * 1024 * 1024;
/** What an entry costs besides its text (the Map entry, arrays, key). */
const ENTRY_BYTES = 200;

/**
 * The traces within a byte budget, the least recently read going first, by second chance (the
 * CLOCK approximation of least recently used): a read marks its entry, and when room is needed the
 * oldest entry goes unless it is marked, in which case it moves to the newest end unmarked. A hit
 * is a flag set, not a Map delete and insert: a check replays thousands of traces, and moving each
 * was 3 ms of a 5,000-file check (docs/benchmarks.md "Digest deploys", session 56).
 */
export class TraceCache {
  readonly #entries = new Map<string, { trace: string; bytes: number; read: boolean }>();
  #bytes = 0;

  constructor(readonly maxBytes = TRACE_CACHE_BYTES) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The trace's JSON text. */
  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    entry.read = true;
    return entry.trace;
  }

  /** Keeps a trace given as its JSON text. */
  set(key: string, trace: string): void {
    this.delete(key);
    // UTF-16 text as V8 holds it, at most.
    const bytes = 2 * (key.length + trace.length) + ENTRY_BYTES;
    if (bytes > this.maxBytes) return;
    // Room first, then the new entry at the newest end. Each marked entry comes round once more
    // unmarked, so this ends.
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      if (entry.read) {
        entry.read = false;
        this.#entries.set(oldest, entry);
      } else this.#bytes -= entry.bytes;
    }
    this.#entries.set(key, { trace, bytes, read: false });
    this.#bytes += bytes;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/**
 * The content check's version: part of every stored trace's key (docs/content-check.md "Stored
 * traces"), so a check that changed replays nothing the old one scanned. Raise it with any change
 * to what a scan finds; the code's own fingerprint (checkFingerprint) is added to it besides, so a
 * forgotten raise still invalidates on the next build.
 */
export const CHECK_VERSION = 3;

/** A file whose trace is looked up: what decides its scan besides the rest of the site. */
export interface TraceFile {
  path: string;
  extension: string;
  size: number;
  sha256: string;
}

/**
 * The keys a file's trace may be under: `free` for a trace whose scan never read the file's path
 * (the same bytes anywhere, in any account's site), `bound` for one that did (the same bytes at the
 * same path). Each names the version, the bytes, how many were read, the type and the option.
 */
export function traceKeys(
  f: TraceFile,
  readBytes: number,
  rootPathsWork: boolean,
  version: string,
): { free: string; bound: string } {
  const free = [version, f.sha256, f.size, readBytes, f.extension, rootPathsWork ? 1 : 0].join('\u0000');
  return { free, bound: `${free}\u0000${f.path}` };
}

/** The key a new trace is kept under, by whether its scan read the file's path (FileTrace.usesPath). */
export const keyOf = (keys: { free: string; bound: string }, usesPath: boolean | undefined) =>
  usesPath === false ? keys.free : keys.bound;

/**
 * The version stored traces are keyed by: CHECK_VERSION and a digest of the check's own code (the
 * modules of this folder, as they run), read once.
 */
export function checkVersion(): string {
  checkVersionText ??= `${CHECK_VERSION}.${checkFingerprint()}`;
  return checkVersionText;
}
let checkVersionText: string | undefined;

function checkFingerprint(): string {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const hash = createHash('sha256');
  try {
    for (const name of fs.readdirSync(dir).sort()) {
      if (!/\.(js|ts)$/.test(name) || /\.(spec|d)\.(js|ts)$/.test(name)) continue;
      hash
        .update(name)
        .update('\u0000')
        .update(fs.readFileSync(path.join(dir, name)));
    }
  } catch {
    // A layout without the folder (bundled): the manual version alone.
    return 'x';
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Traces kept beyond the process (the database's table content_check_traces, wired in by
 * services/content-traces.ts), by stored key (storedKey): what a scan of the same bytes found, for
 * any account's check of the same version.
 */
export interface TraceStore {
  /** The traces (JSON) held under any of these keys. */
  get(keys: readonly string[]): Promise<Map<string, string>>;
  /** Keeps these traces (JSON) for `version`, replacing any under the same key. */
  put(rows: ReadonlyArray<{ key: string; trace: string }>, version: string): Promise<void>;
}

/**
 * Files read at least this far have their traces stored: a smaller one scans in about a millisecond,
 * less than writing its row would cost every upload of new content.
 */
export const STORED_TRACE_MIN_BYTES = 16 * 1024;

/** A stored trace's key as its digest (fixed length, whatever the path). */
export const storedKey = (key: string) => createHash('sha256').update(key).digest('hex');
