/**
 * The last check of an extraction: what is on disk must be exactly the files the validated listing
 * promised, with their declared sizes, and nothing else (no extra names, no links). Synchronous:
 * it runs in the extraction worker (see digest.ts). A size given as null is the caller's to check,
 * as it reads the file anyway (the zip path while it writes it, the 7z path as it hashes it): an
 * lstat of each of 5,000 files cost a 7z's ingest ≈30 ms (docs/benchmarks.md "7z ingest:
 * session 35").
 */
import fs from 'node:fs';
import path from 'node:path';
import { displayName } from './names.js';
import { Refusal } from './refusal.js';

export function verifyExtractedTree(
  outDir: string,
  expected: ReadonlyArray<{ name: string; size: number | null }>,
): void {
  const pending = new Map(expected.map((f) => [f.name, f.size]));
  const walk = (dir: string, prefix: string): void => {
    for (const dirent of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = prefix + dirent.name;
      const full = path.join(dir, dirent.name);
      if (dirent.isDirectory()) {
        walk(full, `${name}/`);
        continue;
      }
      if (!dirent.isFile()) throw new Refusal('notRegularFile', { name: displayName(name) });
      const size = pending.get(name);
      if (size === undefined) throw new Refusal('extractFailed');
      if (size !== null && fs.lstatSync(full).size !== size) throw new Refusal('sizeMismatch');
      pending.delete(name);
    }
  };
  walk(outDir, '');
  if (pending.size > 0) throw new Refusal('extractFailed');
}
