/**
 * Traces of files scanned before (context.ts FileTrace), kept by what decides a scan: the file's
 * path, type, bytes (SHA-256) and how much of it was read, and the check's options. A redeploy
 * that changes one file of thousands then scans one file: every other replays its trace, as long
 * as what it asked of the site (files it links to, scripts it includes) is answered alike
 * (analyze.ts). The most recently used are kept within a byte budget; nothing is stored on disk,
 * so a restart (and with it a change of the rules) starts empty.
 */
import type { FileTrace } from './context.js';

/** Default budget: about 100,000 typical files' traces. */
export const TRACE_CACHE_BYTES = 32 * 1024 * 1024;
/** What an entry costs besides its text (the Map entry, arrays, key). */
const ENTRY_BYTES = 200;

export class TraceCache {
  readonly #entries = new Map<string, { trace: FileTrace; bytes: number }>();
  #bytes = 0;

  constructor(readonly maxBytes = TRACE_CACHE_BYTES) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): FileTrace | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.trace;
  }

  set(key: string, trace: FileTrace): void {
    this.delete(key);
    // UTF-16 text as V8 holds it, roughly: the trace's JSON is its size to within a small factor.
    const bytes = 2 * (key.length + JSON.stringify(trace).length) + ENTRY_BYTES;
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, { trace, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/** The key of a file's trace: everything its scan depends on besides the rest of the site. */
export function traceKey(
  f: { path: string; extension: string; size: number; sha256: string },
  readBytes: number,
  rootPathsWork: boolean,
): string {
  return [f.sha256, f.size, readBytes, f.extension, rootPathsWork ? 1 : 0, f.path].join('\u0000');
}
