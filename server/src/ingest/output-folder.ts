/**
 * Writing an upload's extracted files into its output folder (a new, empty one per job), shared by
 * the zip path (zip-archive.ts) and the 7z and RAR path (sevenzip-output.ts). Synchronous: it runs
 * in the extraction worker (digest.ts).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Makes each file's folder before the file, each folder once (a `mkdir -p` per file otherwise). */
export class ParentFolders {
  readonly #made = new Set<string>();

  /** Makes the folder `dest` is to be written in, unless made already. */
  make(dest: string): void {
    const dir = path.dirname(dest);
    if (this.#made.has(dir)) return;
    fs.mkdirSync(dir, { recursive: true });
    this.#made.add(dir);
  }
}

/** Writes all of `chunk` to `fd` (a write may take only part of it). */
export function writeAll(fd: number, chunk: Buffer): void {
  for (let off = 0; off < chunk.length; ) off += fs.writeSync(fd, chunk, off, chunk.length - off);
}
