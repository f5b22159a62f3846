/** The last check of a zip's extraction: exactly the listed files, and nothing else. */
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
  it('takes exactly the listed files', () => {
    const dir = outDir({ 'index.html': '<p>hi</p>', 'css/a.css': 'a{}', 'empty/': '' });
    expect(reason(() => verifyExtractedTree(dir, ['index.html', 'css/a.css']))).toBeNull();
  });

  it('refuses a file not listed, a listed file missing, and anything but files and folders', () => {
    const extra = outDir({ 'index.html': 'x', 'extra.js': 'y' });
    expect(reason(() => verifyExtractedTree(extra, ['index.html']))).toBe('extractFailed');
    const missing = outDir({ 'index.html': 'x' });
    expect(reason(() => verifyExtractedTree(missing, ['index.html', 'gone.html']))).toBe('extractFailed');
    const linked = outDir({ 'index.html': 'x' });
    fs.symlinkSync('/etc/passwd', path.join(linked, 'passwd'));
    expect(reason(() => verifyExtractedTree(linked, ['index.html', 'passwd']))).toBe('notRegularFile');
  });
});
