/**
 * The last check of an extraction: exactly the listed files, of their sizes where given; and the
 * size check of a 7z's file as it is hashed (inspectFile), where the tree check leaves it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectFile } from './digest.js';
import { verifyExtractedTree } from './extracted-tree.js';
import { Refusal } from './refusal.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An output folder holding these files (a name ending in "/" is an empty folder). */
function outDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-extracted-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, ...name.split('/'));
    if (name.endsWith('/')) fs.mkdirSync(file, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  return dir;
}

function reason(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof Refusal) return err.reason;
    throw err;
  }
}

describe('verifyExtractedTree', () => {
  it('takes exactly the listed files at their declared sizes', () => {
    const dir = outDir({ 'index.html': '<p>hi</p>', 'css/a.css': 'a{}', 'empty/': '' });
    expect(
      reason(() =>
        verifyExtractedTree(dir, [
          { name: 'index.html', size: 9 },
          { name: 'css/a.css', size: 3 },
        ]),
      ),
    ).toBeNull();
  });

  it('refuses a size other than declared, and leaves a size given as null to the caller', () => {
    const dir = outDir({ 'index.html': '<p>longer than declared</p>' });
    expect(reason(() => verifyExtractedTree(dir, [{ name: 'index.html', size: 9 }]))).toBe('sizeMismatch');
    // The caller reads the file anyway (the 7z path hashes it, the zip path wrote it) and checks then.
    expect(reason(() => verifyExtractedTree(dir, [{ name: 'index.html', size: null }]))).toBeNull();
  });

  it('refuses a file not listed, a listed file missing, and anything but files and folders', () => {
    /** The names listed, sizes left to the caller. */
    const listed = (...names: string[]) => names.map((name) => ({ name, size: null }));
    const extra = outDir({ 'index.html': 'x', 'extra.js': 'y' });
    expect(reason(() => verifyExtractedTree(extra, listed('index.html')))).toBe('extractFailed');
    const missing = outDir({ 'index.html': 'x' });
    expect(reason(() => verifyExtractedTree(missing, listed('index.html', 'gone.html')))).toBe(
      'extractFailed',
    );
    const linked = outDir({ 'index.html': 'x' });
    fs.symlinkSync('/etc/passwd', path.join(linked, 'passwd'));
    expect(reason(() => verifyExtractedTree(linked, listed('index.html', 'passwd')))).toBe('notRegularFile');
  });
});

describe('inspectFile with the size listed', () => {
  it('hashes a file of the listed size and refuses one of any other', () => {
    const dir = outDir({ 'index.html': '<p>hi</p>' });
    const file = path.join(dir, 'index.html');
    expect(inspectFile('index.html', file, false, 9)).toMatchObject({ path: 'index.html', size: 9 });
    expect(reason(() => inspectFile('index.html', file, false, 8))).toBe('sizeMismatch');
    expect(reason(() => inspectFile('index.html', file, false, 10))).toBe('sizeMismatch');
  });
});
