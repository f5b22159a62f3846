/**
 * ExtractedFiles (sevenzip-output.ts): 7-Zip's `x -so` output cut into the planned files by their
 * listed sizes, whatever the writes' boundaries, and refused when the bytes and the listing
 * disagree. The whole path through 7-Zip is in sevenzip-archive.spec.ts and ingest.spec.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Plan, PlannedFile } from './plan.js';
import { Refusal } from './refusal.js';
import { ExtractedFiles } from './sevenzip-output.js';

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-7z-output-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

interface Listed {
  name: string;
  bytes: Buffer;
  junk?: boolean;
}

function planOf(listed: Listed[]): Plan {
  const plan: Plan = { files: [], junk: [] };
  listed.forEach(({ name, bytes, junk }, index) => {
    const planned: PlannedFile = { index, name, path: name, size: bytes.length, downloadOnly: false };
    (junk ? plan.junk : plan.files).push(planned);
  });
  return plan;
}

/** Writes `output` to `files` in pieces of the given sizes (repeated), as 7-Zip's writes come. */
function feed(files: ExtractedFiles, output: Buffer, pieces: number[]): void {
  // 7-Zip's memory: the output sits at an offset of a larger buffer, as in the WebAssembly heap.
  const memory = new Int8Array(output.length + 64);
  memory.set(output, 32);
  let at = 0;
  for (let i = 0; at < output.length; i++) {
    const n = Math.min(pieces[i % pieces.length]!, output.length - at);
    files.write(memory, 32 + at, n);
    at += n;
  }
}

function refusal(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    return err instanceof Refusal ? err.reason : String(err);
  }
}

const page = (text: string) => Buffer.from(`<!doctype html><p>${text}</p>\n`);

describe('ExtractedFiles', () => {
  const listed: Listed[] = [
    { name: 'index.html', bytes: page('首页') },
    { name: 'empty.css', bytes: Buffer.alloc(0) },
    { name: '__MACOSX/._index.html', bytes: Buffer.from('apple double'), junk: true },
    { name: 'docs/a/guide.html', bytes: page('指南'.repeat(5000)) },
    { name: 'docs/b/data.txt', bytes: Buffer.from('x'.repeat(70_000)) },
    { name: 'docs/b/last-empty.js', bytes: Buffer.alloc(0) },
  ];
  const output = Buffer.concat(listed.map((l) => l.bytes));

  it.each([
    ['one write', [output.length]],
    ['a byte at a time', [1]],
    ['uneven writes across files', [7, 4096, 13, 65_536]],
  ])('cuts the output into the listed files, by their sizes (%s)', (_label, pieces) => {
    const outDir = fs.mkdtempSync(path.join(root, 'out-'));
    const files = new ExtractedFiles(outDir, planOf(listed));
    feed(files, output, pieces);
    const checked = files.end();
    files.close();
    const kept = listed.filter((l) => !l.junk);
    expect(checked.map((f) => f.path)).toEqual(kept.map((l) => l.name));
    for (const [i, l] of kept.entries()) {
      const file = path.join(outDir, l.name);
      expect(fs.readFileSync(file).equals(l.bytes), l.name).toBe(true);
      expect(checked[i]!.tempFile).toBe(file);
      expect(checked[i]!.sha256).toBe(crypto.createHash('sha256').update(l.bytes).digest('hex'));
      expect(checked[i]!.size).toBe(l.bytes.length);
    }
    // Junk is read past, never written.
    expect(fs.existsSync(path.join(outDir, '__MACOSX'))).toBe(false);
  });

  it('refuses more bytes than the listing declared, and fewer', () => {
    const more = new ExtractedFiles(fs.mkdtempSync(path.join(root, 'out-')), planOf(listed));
    const extra = Buffer.concat([output, Buffer.from('!')]);
    expect(refusal(() => feed(more, extra, [extra.length]))).toBe('sizeMismatch');
    more.close();

    const fewer = new ExtractedFiles(fs.mkdtempSync(path.join(root, 'out-')), planOf(listed));
    feed(fewer, output.subarray(0, output.length - 1), [4096]);
    expect(refusal(() => fewer.end())).toBe('sizeMismatch');
    fewer.close();

    // Short by a whole file that has bytes: the last non-empty file never came.
    const missing = new ExtractedFiles(fs.mkdtempSync(path.join(root, 'out-')), planOf(listed));
    const upToData = listed.slice(0, 4).reduce((n, l) => n + l.bytes.length, 0);
    feed(missing, output.subarray(0, upToData), [4096]);
    expect(refusal(() => missing.end())).toBe('sizeMismatch');
    missing.close();
  });

  it('names every executable at the end, whatever it is called', () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(200)]);
    const withPrograms: Listed[] = [
      { name: 'index.html', bytes: page('首页') },
      { name: 'tool.png', bytes: elf },
      { name: 'run.css', bytes: Buffer.from('#!/bin/sh\nrm -rf /\n') },
    ];
    const files = new ExtractedFiles(fs.mkdtempSync(path.join(root, 'out-')), planOf(withPrograms));
    feed(files, Buffer.concat(withPrograms.map((l) => l.bytes)), [100]);
    let thrown: unknown;
    try {
      files.end();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Refusal);
    expect((thrown as Refusal).reason).toBe('executable');
    expect((thrown as Refusal).values.names).toEqual(['tool.png', 'run.css']);
  });

  it('never writes over a file already there, and closes the one left open', () => {
    const outDir = fs.mkdtempSync(path.join(root, 'out-'));
    fs.writeFileSync(path.join(outDir, 'index.html'), 'there before');
    const files = new ExtractedFiles(outDir, planOf(listed));
    expect(refusal(() => feed(files, output, [10]))).toMatch(/EEXIST/);
    expect(fs.readFileSync(path.join(outDir, 'index.html'), 'utf8')).toBe('there before');

    // A run that fails part-way through a file: its descriptor is closed by close().
    const partwayDir = fs.mkdtempSync(path.join(root, 'out-'));
    const partway = new ExtractedFiles(partwayDir, planOf(listed));
    const opened = vi.spyOn(fs, 'openSync');
    // index.html, empty.css, the junk read past, then 10 bytes of docs/a/guide.html.
    feed(partway, output.subarray(0, listed[0]!.bytes.length + listed[2]!.bytes.length + 10), [5]);
    expect(opened.mock.calls.at(-1)![0]).toBe(path.join(partwayDir, 'docs', 'a', 'guide.html'));
    const fd = opened.mock.results.at(-1)!.value as number;
    expect(fs.fstatSync(fd).size).toBe(10);
    partway.close();
    expect(refusal(() => fs.fstatSync(fd))).toMatch(/EBADF/);
  });
});
