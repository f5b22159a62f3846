/**
 * 7-Zip's file layer, where sevenzip-archive.ts does Emscripten's work its own way: path lookups,
 * the terminal's lines, and the files cut from its output. Each is held to what Emscripten itself does.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '@sitehall/contracts';
import sevenZipModule, { type SevenZipModule, type SevenZipModuleFactory } from '7z-wasm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { extractWithSevenZip, openSevenZip, plainPathLookups, StdoutLines } from './sevenzip-archive.js';
import { compileSevenZip, SEVEN_ZIP_TIERING_BUDGET } from './sevenzip-code.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const loadSevenZip = sevenZipModule as unknown as SevenZipModuleFactory;

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-7z-layer-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A fresh 7-Zip instance whose terminal lines are collected. */
async function instance(): Promise<{ sevenZip: SevenZipModule; printed: string[] }> {
  const printed: string[] = [];
  const sevenZip = await loadSevenZip({
    print: (line) => printed.push(line),
    printErr: () => {},
    stdin: () => null as unknown as number,
  });
  return { sevenZip, printed };
}

/** A deterministic generator (tests repeat exactly). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe("7-Zip's terminal", () => {
  it('gives the lines Emscripten’s terminal gives, for any bytes in any writes', async () => {
    const { sevenZip, printed } = await instance();
    type Fs = { write: (...a: unknown[]) => number; getStream: (fd: number) => unknown };
    const emscripten = sevenZip.FS as unknown as Fs;
    const stdout = emscripten.getStream(1);
    const pieces = [
      'Path = site/index.html',
      '\n',
      '\n',
      '站点展厅',
      '\u0000',
      '😀',
      '\ufffd',
      'a',
      Buffer.from([0x80]),
      Buffer.from([0xff, 0xfe]),
      Buffer.from([0xc3]),
      Buffer.from([0xe4, 0xb8]),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xc0, 0xaf]),
    ].map((p) => (typeof p === 'string' ? Buffer.from(p) : p));
    const next = random(33);
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.concat(
        Array.from(
          { length: 1 + Math.floor(next() * 40) },
          () => pieces[Math.floor(next() * pieces.length)]!,
        ),
      );
      // Emscripten's own terminal first, then ours, given the same writes.
      const writes: Int8Array[] = [];
      for (let at = 0; at < bytes.length; ) {
        const length = 1 + Math.floor(next() * 12);
        writes.push(new Int8Array(bytes.subarray(at, at + length)));
        at += length;
      }
      writes.push(new Int8Array(Buffer.from('\n')));
      printed.length = 0;
      for (const w of writes) emscripten.write(stdout, w, 0, w.length);
      const expected = [...printed];
      const ours: string[] = [];
      const lines = new StdoutLines((line) => ours.push(line), sevenZip);
      for (const w of writes) {
        // Inside a larger memory, as 7-Zip's writes are.
        const memory = new Int8Array(w.length + 16).fill(0x41);
        memory.set(w, 8);
        expect(lines.write(memory, 8, w.length)).toBe(w.length);
      }
      lines.flush();
      expect(ours).toEqual(expected);
    }
  });

  it('turns an exception of the line reader into a write error, as the terminal did', async () => {
    const { sevenZip } = await instance();
    const lines = new StdoutLines(() => {
      throw new Error('stop');
    }, sevenZip);
    lines.write(new Int8Array(Buffer.from('x\n')), 0, 2);
    expect(() => lines.flush()).toThrow(expect.objectContaining({ errno: 29 }));
    // Past what it gathers, the lines are told (and the error made) within the write itself.
    const many = Buffer.from('Path = a\n'.repeat(10_000));
    expect(() => lines.write(new Int8Array(many), 0, many.length)).toThrow(
      expect.objectContaining({ errno: 29 }),
    );
  });

  it('tells the lines of a long output while it is written, and the rest when flushed', async () => {
    const { sevenZip } = await instance();
    const told: string[] = [];
    const lines = new StdoutLines((line) => told.push(line), sevenZip);
    const expected: string[] = [];
    const memory = new Int8Array(64 * 1024);
    for (let i = 0; i < 20_000; i++) {
      // As 7-Zip writes a line: its text, then the line feed, each a write of its own.
      const text = Buffer.from(i % 1000 === 7 ? `Path = 目录/页面 ${i}.html` : `Size = ${i}`);
      expected.push(text.toString());
      memory.set(text, 100);
      lines.write(memory, 100, text.length);
      memory[5000] = 0x0a;
      lines.write(memory, 5000, 1);
      // Told in gathered chunks, never more than a chunk behind.
      expect(expected.length - told.length).toBeLessThan(5_000);
    }
    expect(told.length).toBeGreaterThan(0);
    memory.set(Buffer.from('no line feed'), 0);
    lines.write(memory, 0, 12);
    lines.flush();
    expect(told).toEqual(expected);
  });
});

describe("7-Zip's path lookups", () => {
  it('find what Emscripten’s lookupPath finds, or fail as it fails', async () => {
    const host = fs.mkdtempSync(path.join(root, 'host-'));
    fs.mkdirSync(path.join(host, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(host, 'a', 'b', 'c.txt'), 'c');
    fs.symlinkSync('a', path.join(host, 'link'));
    const { sevenZip } = await instance();
    type Lookup = (p: string, o?: object) => { path: string; node?: unknown };
    const FS = sevenZip.FS as unknown as {
      lookupPath: Lookup;
      mkdir(p: string): void;
      mount(type: unknown, opts: object, at: string): void;
    };
    FS.mkdir('/in');
    FS.mount(sevenZip.NODEFS, { root: host }, '/in');
    FS.mkdir('/mem');
    const emscripten = FS.lookupPath.bind(FS);
    plainPathLookups(sevenZip);
    const ours = FS.lookupPath;
    expect(ours).not.toBe(emscripten);
    const outcome = (lookup: Lookup, p: string, o: object) => {
      try {
        return lookup(p, { ...o });
      } catch (err) {
        return { errno: (err as { errno?: number }).errno };
      }
    };
    const paths = [
      '/',
      '//',
      '/in',
      '/in/',
      '/in/a',
      '/in//a/b/',
      '/in/a/b/c.txt',
      '/in/a/b/c.txt/d',
      '/in/a/./b',
      '/in/a/../a/b',
      '/in/../in/a',
      '/in/missing',
      '/in/a/missing/deeper',
      '/in/link',
      '/in/link/b/c.txt',
      '/mem',
      '/mem/none',
      'in/a',
      '/dev/tty',
    ];
    const options = [{}, { parent: true }, { follow: true }, { noent_okay: true }, { follow_mount: false }];
    for (const p of paths) {
      for (const o of options) {
        // Ours first: a lookup may add nodes to Emscripten's cache, which the second then finds.
        const mine = outcome(ours, p, o);
        expect(mine, `${p} ${JSON.stringify(o)}`).toEqual(outcome(emscripten, p, o));
        if ('node' in mine) expect(mine.node).toBe((outcome(emscripten, p, o) as { node?: unknown }).node);
      }
    }
  });
});

describe('files 7-Zip extracts', () => {
  it('are written by us from its output, each opened once, new and 0644, never read back', async () => {
    const outDir = fs.mkdtempSync(path.join(root, 'out-'));
    const archive = path.join(FIXTURES, '7z', 'site.7z');
    const created = vi.spyOn(fs, 'writeFileSync');
    const opened = vi.spyOn(fs, 'openSync');
    const read = vi.spyOn(fs, 'readSync');
    const files = await extractWithSevenZip(
      '7z',
      archive,
      outDir,
      { ...DEFAULT_LIMITS, forbiddenExtensions: [] },
      await compileSevenZip(),
    );
    expect(files.length).toBeGreaterThan(0);
    const inOutput = (p: unknown) => typeof p === 'string' && p.startsWith(outDir);
    // 7-Zip itself creates nothing: NODEFS would have (writeFileSync), then opened it again.
    expect(created.mock.calls.filter(([p]) => inOutput(p))).toEqual([]);
    const outputFds = new Set<number>();
    for (const f of files) {
      const calls = opened.mock.calls.flatMap(([p, flags], i) =>
        p === f.tempFile ? [{ flags, fd: opened.mock.results[i]!.value as number }] : [],
      );
      // Once, to write it, as a new file: not again to hash it (hashed as it was written).
      expect(calls.map((c) => c.flags)).toEqual(['wx']);
      outputFds.add(calls[0]!.fd);
      expect(fs.statSync(f.tempFile).mode & 0o777).toBe(0o644 & ~process.umask());
      expect(f.sha256).toBe(crypto.createHash('sha256').update(fs.readFileSync(f.tempFile)).digest('hex'));
    }
    expect(read.mock.calls.filter(([fd]) => outputFds.has(fd as number))).toEqual([]);
    // Every file of the archive, byte for byte as 7-Zip itself extracts it.
    const native = fs.mkdtempSync(path.join(root, 'native-'));
    expect(spawnSync('7zz', ['x', '-y', `-o${native}`, archive]).status).toBe(0);
    for (const f of files) {
      expect(fs.readFileSync(f.tempFile).equals(fs.readFileSync(path.join(native, f.path)))).toBe(true);
    }
  });
});

describe('one 7-Zip instance', () => {
  it('lists, then extracts, and is never used again once a command has failed', async () => {
    const archive = path.join(FIXTURES, '7z', 'site.7z');
    const sevenZip = await openSevenZip(await compileSevenZip(), { '/in': path.dirname(archive) });
    const lines: string[] = [];
    expect(sevenZip.run(['l', '-slt', '-t7z', '/in/site.7z'], { onLine: (l) => lines.push(l) }).code).toBe(0);
    expect(lines.some((l) => l.startsWith('Path = '))).toBe(true);
    let bytes = 0;
    const run = sevenZip.run(['x', '-so', '-t7z', '-bd', '/in/site.7z'], {
      onData: (_m, _o, n) => (bytes += n),
    });
    expect(run.code).toBe(0);
    const native = spawnSync('7zz', ['x', '-so', archive], { maxBuffer: 64 * 1024 * 1024 });
    expect(bytes).toBe(native.stdout.length);
    // A command that fails (no such archive: exit code 2) ends the instance.
    expect(sevenZip.run(['l', '/in/missing.7z'], {}).code).not.toBe(0);
    expect(() => sevenZip.run(['l', '-slt', '/in/site.7z'], {})).toThrow(/reused after a failed command/);
  });
});

describe("7-Zip's code", () => {
  /**
   * Extracts `archive` in a new process (7-Zip compiled there as a job's worker would), with V8
   * telling each function it compiled: how many of 7-Zip's TurboFan optimised.
   */
  function optimisedFunctions(archive: string, nodeFlags: string[] = []): number {
    const outDir = fs.mkdtempSync(path.join(root, 'out-'));
    const module = new URL('./sevenzip-archive.ts', import.meta.url).href;
    const limits = JSON.stringify({ ...DEFAULT_LIMITS, forbiddenExtensions: [] });
    const script = [
      `const { extractWithSevenZip } = await import(${JSON.stringify(module)});`,
      `const files = await extractWithSevenZip('7z', ${JSON.stringify(archive)}, ${JSON.stringify(outDir)}, ${limits});`,
      "console.log('files ' + files.length);",
    ].join('\n');
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--trace-wasm-compilation-times',
        // No background threads: each optimisation V8 starts is compiled then and there, so every
        // one is told before the process ends (no wait for V8's compile threads).
        '--single-threaded',
        ...nodeFlags,
        '--input-type=module',
        '-e',
        script,
      ],
      // Bounded: spawnSync holds the test's event loop, so the test's own timeout could not end a
      // child that hung (killed past this, its output lacks the line below and the test fails).
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 180_000 },
    );
    expect(child.stdout, child.stderr).toContain('files 1000');
    // "Compiled function 0x…#index using Liftoff|TurboFan", by module: 7-Zip's has thousands of
    // functions (Node's CommonJS lexer, which tsx loads, is WebAssembly too, of a few dozen).
    const byModule = new Map<string, { top: number; turbofan: number }>();
    for (const [, module, index, tier] of child.stdout.matchAll(
      /Compiled function (0x[0-9a-f]+)#(\d+) using (\w+)/g,
    )) {
      const seen = byModule.get(module!) ?? { top: 0, turbofan: 0 };
      seen.top = Math.max(seen.top, Number(index));
      if (tier === 'TurboFan') seen.turbofan++;
      byModule.set(module!, seen);
    }
    const sevenZip = [...byModule.values()].find((m) => m.top >= 1000);
    expect(sevenZip).toBeDefined();
    return sevenZip!.turbofan;
  }

  it('is optimised by TurboFan only where it runs long, not for every function a 7z passes through', async () => {
    // A 7z of 1,000 small pages, made by 7-Zip itself.
    const { sevenZip } = await instance();
    const host = fs.mkdtempSync(path.join(root, 'pages-'));
    for (let i = 0; i < 1000; i++) {
      fs.mkdirSync(path.join(host, 'site', `p${i % 10}`), { recursive: true });
      fs.writeFileSync(path.join(host, 'site', `p${i % 10}`, `page${i}.html`), `<p>第 ${i} 页</p>\n`);
    }
    sevenZip.FS.mkdir('/w');
    sevenZip.FS.mount(sevenZip.NODEFS, { root: host }, '/w');
    sevenZip.FS.chdir('/w');
    expect(sevenZip.callMain(['a', '-t7z', '-bd', '/w/pages.7z', 'site'])).toBe(0);
    const archive = path.join(host, 'pages.7z');
    // V8's default budget optimised a score of 7-Zip's functions for this archive (23 on Node 20).
    expect(optimisedFunctions(archive, ['--wasm-tiering-budget=1800000'])).toBeGreaterThan(5);
    // 7-Zip's budget: none of them (an archive's decoding loops still are, a large one's: the
    // bench's 5,000-file 7z had the LZMA decoder and the CRC optimised, docs/benchmarks.md).
    expect(SEVEN_ZIP_TIERING_BUDGET).toBeGreaterThan(1_800_000);
    expect(optimisedFunctions(archive)).toBe(0);
  });
});
