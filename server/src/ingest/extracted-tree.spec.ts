/** The last check of an extraction: exactly the listed files, of their sizes where given. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
    const dir = outDir({ 'index.html': 'x', 'extra.js': 'y' });
    expect(reason(() => verifyExtractedTree(dir, [{ name: 'index.html', size: null }]))).toBe(
      'extractFailed',
    );
    const missing = outDir({ 'index.html': 'x' });
    expect(
      reason(() =>
        verifyExtractedTree(missing, [
          { name: 'index.html', size: null },
          { name: 'gone.html', size: null },
        ]),
      ),
    ).toBe('extractFailed');
    const linked = outDir({ 'index.html': 'x' });
    fs.symlinkSync('/etc/passwd', path.join(linked, 'passwd'));
    expect(
      reason(() =>
        verifyExtractedTree(linked, [
          { name: 'index.html', size: null },
          { name: 'passwd', size: null },
        ]),
      ),
    ).toBe('notRegularFile');
  });
});
