import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint, needsBuild } from './build-if-changed.mjs';

const dirs = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tree(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-build-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const opts = { inputs: ['src', 'package.json'], outputs: ['dist/main.js'], stamp: 'dist/.stamp' };

describe('build-if-changed', () => {
  it('builds when an output is missing or no build was recorded, and not again until a source changes', () => {
    const dir = tree({ 'src/a.ts': 'a', 'src/b/c.ts': 'c', 'package.json': '{}' });
    expect(needsBuild(dir, opts)).toBe(true);
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.writeFileSync(path.join(dir, 'dist/main.js'), '');
    expect(needsBuild(dir, opts)).toBe(true);
    fs.writeFileSync(path.join(dir, 'dist/.stamp'), fingerprint(dir, opts.inputs));
    expect(needsBuild(dir, opts)).toBe(false);

    fs.writeFileSync(path.join(dir, 'src/b/c.ts'), 'changed');
    expect(needsBuild(dir, opts)).toBe(true);
    fs.writeFileSync(path.join(dir, 'dist/.stamp'), fingerprint(dir, opts.inputs));
    expect(needsBuild(dir, opts)).toBe(false);

    fs.writeFileSync(path.join(dir, 'src/new.ts'), 'new');
    expect(needsBuild(dir, opts)).toBe(true);
    fs.writeFileSync(path.join(dir, 'dist/.stamp'), fingerprint(dir, opts.inputs));
    fs.rmSync(path.join(dir, 'src/a.ts'));
    expect(needsBuild(dir, opts)).toBe(true);
    fs.writeFileSync(path.join(dir, 'dist/.stamp'), fingerprint(dir, opts.inputs));
    fs.rmSync(path.join(dir, 'dist/main.js'));
    expect(needsBuild(dir, opts)).toBe(true);
  });
});
