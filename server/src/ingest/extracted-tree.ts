/**
 * The last check of an extraction: what is on disk must be exactly the files the validated listing
 * promised, and nothing else (no extra names, no links). Their sizes are the caller's to check, as
 * it wrote them (zip-archive.ts). Synchronous: it runs in the extraction worker (see digest.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { displayName } from './names.js';
import { Refusal } from './refusal.js';

export function verifyExtractedTree(outDir: string, expected: Iterable<string>): void {
  const pending = new Set(expected);
  const walk = (dir: string, prefix: string): void => {
    for (const dirent of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = prefix + dirent.name;
      if (dirent.isDirectory()) {
        walk(path.join(dir, dirent.name), `${name}/`);
        continue;
      }
      if (!dirent.isFile()) throw new Refusal('notRegularFile', { name: displayName(name) });
      if (!pending.delete(name)) throw new Refusal('extractFailed');
    }
  };
  walk(outDir, '');
  if (pending.size > 0) throw new Refusal('extractFailed');
}
