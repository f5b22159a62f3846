/**
 * The last check of an extraction: what is on disk must be exactly the files the validated listing
 * promised, with their declared sizes, and nothing else (no extra names, no links).
 */
import fs from 'node:fs';
import path from 'node:path';
import { displayName } from './names.js';
import { Refusal } from './refusal.js';

export async function verifyExtractedTree(
  outDir: string,
  expected: ReadonlyArray<{ name: string; size: number }>,
): Promise<void> {
  const pending = new Map(expected.map((f) => [f.name, f.size]));
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const dirent of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const name = prefix + dirent.name;
      const full = path.join(dir, dirent.name);
      if (dirent.isDirectory()) {
        await walk(full, `${name}/`);
        continue;
      }
      if (!dirent.isFile()) throw new Refusal('notRegularFile', { name: displayName(name) });
      const size = pending.get(name);
      if (size === undefined) throw new Refusal('extractFailed');
      if ((await fs.promises.lstat(full)).size !== size) throw new Refusal('sizeMismatch');
      pending.delete(name);
    }
  };
  await walk(outDir, '');
  if (pending.size > 0) throw new Refusal('extractFailed');
}
