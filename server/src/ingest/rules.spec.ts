/** The pure rules behind ingest: names, the tree, content by magic bytes, unwrapping, entry file. */
import { describe, expect, it } from 'vitest';
import { acceptHeldContent, archiveFormatOf, checkContent, looksBinary } from './content.js';
import { factsOfHead } from './index.js';
import { mediaTypeFor, unreadActiveType } from './media-type.js';
import { checkEntryName, displayName, EntryTree, isJunk } from './names.js';
import { Refusal, type RefusalReason } from './refusal.js';
import { findEntryFile, unwrapSingleFolder } from './site-tree.js';

function reasonOf(fn: () => unknown): RefusalReason | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof Refusal) return err.reason;
    throw err;
  }
}

const treeOf =
  (...items: Array<[kind: 'file' | 'dir', name: string]>) =>
  () => {
    const tree = new EntryTree();
    for (const [kind, name] of items) tree.add(kind, checkEntryName(name, kind === 'dir'), name);
  };

describe('entry names', () => {
  it('accepts ordinary relative paths and returns them in NFC', () => {
    expect(checkEntryName('css/app.css', false)).toBe('css/app.css');
    expect(checkEntryName('图片/说明 1.txt', false)).toBe('图片/说明 1.txt');
    expect(checkEntryName('assets/', true)).toBe('assets');
    expect(checkEntryName('cafe\u0301.html', false)).toBe('caf\u00e9.html');
  });

  it.each([
    '../evil.html',
    'a/../../evil.html',
    '/etc/passwd',
    'a\\..\\evil.html',
    'C:/Windows/evil.html',
    'c:evil.html',
    './a.html',
    'a//b.html',
  ])('refuses the unsafe path %j', (name) => {
    expect(reasonOf(() => checkEntryName(name, false))).toBe('pathTraversal');
  });

  it.each([
    'evil\u202elmth.txt',
    'x\u2066.css',
    'mark\u200e.js',
    'arabic\u061c.js',
    'index\u200b.html',
    'zw\u200c\u200d.css',
    'join\u2060ed/a.js',
    'soft\u00adhyphen.txt',
    'bom\ufeff.txt',
    'line\u2028.txt',
    'filler\u3164.png',
    'cgj\u034f.png',
    'tag\u{e0041}.png',
    'mongolian\u180e.png',
  ])('refuses the look-alike name %j, with the invisible characters shown', (name) => {
    let message = '';
    expect(
      reasonOf(() => {
        try {
          checkEntryName(name, false);
        } catch (err) {
          message = (err as Refusal).values.name ?? '';
          throw err;
        }
      }),
    ).toBe('invisibleName');
    expect(message).toMatch(/\\u/);
    expect(message).not.toMatch(/[\p{Cf}\u2028\u3164]|\u034f/u);
  });

  it.each(['emoji-😀.png', '中文名称.html', 'café.css', 'ﾊﾝｶｸ.txt'])(
    'accepts the visible name %j',
    (name) => {
      expect(checkEntryName(name, false)).toBe(name.normalize('NFC'));
    },
  );

  it.each([
    'a\u0000.html',
    'bell\u0007.txt',
    'del\u007f.txt',
    'c1\u0085.txt',
    'bad\ufffd.txt',
    'page:1.html',
    ' /index.html',
    'a/ /b.html',
  ])('refuses the name %j', (name) => {
    expect(reasonOf(() => checkEntryName(name, false))).toBe('badName');
  });

  it('refuses a name with a lone surrogate, spelling it out in the message', () => {
    // 7-Zip's listing of a name that is not UTF-8 (Emscripten's decoding, sevenzip-archive.ts).
    for (const name of ['bad\udf7a\udcf3s', 'hi\ud800.css', '\udc00.css']) {
      let shown = '';
      try {
        checkEntryName(name, false);
      } catch (err) {
        shown = (err as Refusal).values.name ?? '';
      }
      expect(shown).toMatch(/\\ud[89abcdef]/);
      expect(shown).not.toMatch(/[\ud800-\udfff]/u);
    }
    expect(displayName('😀.png')).toBe('😀.png');
    // A long name is cut before a pair, not inside it.
    expect(displayName(`${'a'.repeat(199)}😀.png`)).toBe(`${'a'.repeat(199)}…`);
    expect(displayName(`${'a'.repeat(198)}😀.png`)).toBe(`${'a'.repeat(198)}😀…`);
  });

  it('limits depth and length', () => {
    const deep = `${Array.from({ length: 33 }, (_, i) => `d${i}`).join('/')}/a.txt`;
    const okDeep = `${Array.from({ length: 32 }, (_, i) => `d${i}`).join('/')}/a.txt`;
    expect(reasonOf(() => checkEntryName(deep, false))).toBe('tooDeep');
    expect(checkEntryName(okDeep, false)).toBe(okDeep);
    expect(reasonOf(() => checkEntryName(`${'a'.repeat(252)}.txt`, false))).toBe('nameTooLong');
    expect(reasonOf(() => checkEntryName(`${'字'.repeat(84)}.txt`, false))).toBe('nameTooLong');
    const long = `${Array.from({ length: 10 }, () => 'x'.repeat(120)).join('/')}/a.txt`;
    expect(reasonOf(() => checkEntryName(long, false))).toBe('nameTooLong');
  });

  it('recognises operating-system litter', () => {
    for (const junk of [
      '__MACOSX/site/._a.html',
      '.DS_Store',
      'site/Thumbs.db',
      'a/desktop.ini',
      'x/._y.css',
    ]) {
      expect(isJunk(junk)).toBe(true);
    }
    expect(isJunk('site/index.html')).toBe(false);
  });
});

describe('the tree', () => {
  it('accepts folders seen more than once', () => {
    expect(
      reasonOf(treeOf(['dir', 'a/'], ['file', 'a/x.css'], ['file', 'a/b/y.css'], ['dir', 'a/b/'])),
    ).toBeNull();
  });

  it('refuses duplicates and names that differ only by case or normalisation', () => {
    expect(reasonOf(treeOf(['file', 'a.html'], ['file', 'a.html']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'Index.html'], ['file', 'index.html']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'caf\u00e9.txt'], ['file', 'cafe\u0301.txt']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'CSS/a.css'], ['file', 'css/b.css']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'caf\u00e9/a.css'], ['file', 'cafe\u0301/b.css']))).toBe('duplicateName');
  });

  it('refuses names that differ only by blanks at an end or dots at the end', () => {
    expect(reasonOf(treeOf(['file', 'index.html'], ['file', ' index.html']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'index.html'], ['file', 'Index.html. .']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'a.css'], ['file', 'a.css\u00a0']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'css/a.css'], ['file', 'css /b.css']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['dir', 'css /'], ['file', 'css/b.css']))).toBe('duplicateName');
    expect(reasonOf(treeOf(['file', 'css.'], ['file', 'css/b.css']))).toBe('fileFolderClash');
    // Alone, or inside a name, they are kept.
    expect(
      reasonOf(treeOf(['file', 'notes .txt'], ['file', 'docs /a.txt'], ['file', 'a b/c. d.txt'])),
    ).toBeNull();
  });

  it('refuses a path that is both a file and a folder', () => {
    expect(reasonOf(treeOf(['file', 'a.html'], ['file', 'a.html/x.css']))).toBe('fileFolderClash');
    expect(reasonOf(treeOf(['dir', 'docs/'], ['file', 'DOCS']))).toBe('fileFolderClash');
  });

  it('still finds a clash with a folder whose files it has seen many times', () => {
    // Files of a folder already seen add only themselves: what comes later is checked against the
    // folders all the same.
    const many = (folder: string) =>
      Array.from({ length: 50 }, (_, i): ['file', string] => ['file', `${folder}/p${i}.html`]);
    expect(reasonOf(treeOf(...many('docs/api'), ['file', 'docs/api']))).toBe('fileFolderClash');
    expect(reasonOf(treeOf(...many('docs/api'), ['file', 'docs']))).toBe('fileFolderClash');
    expect(reasonOf(treeOf(...many('docs/api'), ['file', 'Docs/z.html']))).toBe('duplicateName');
    expect(reasonOf(treeOf(...many('docs/api'), ['file', 'docs/API/z.html']))).toBe('duplicateName');
    expect(reasonOf(treeOf(...many('docs'), ['file', 'docs/p3.html/x.css']))).toBe('fileFolderClash');
    expect(reasonOf(treeOf(...many('docs'), ['dir', 'docs/'], ['file', 'docs/more/x.css']))).toBeNull();
    // A folder listed in another normalisation than it is kept, before or after the same folder's
    // files listed as kept.
    expect(reasonOf(treeOf(['file', 'cafe\u0301/a.css'], ...many('caf\u00e9')))).toBe('duplicateName');
    expect(reasonOf(treeOf(...many('caf\u00e9'), ['file', 'cafe\u0301/b.css']))).toBe('duplicateName');
  });
});

const bytes = (...parts: Array<number[] | string>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('content by magic bytes', () => {
  const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR');
  const html = Buffer.from('<!doctype html><p>hi</p>');
  const check = (ext: string, head: Buffer, size = head.length) =>
    reasonOf(() => checkContent('f', ext, head, size));

  it("remembers a held content's verdict only for the extension and kind it was given under", () => {
    const facts = factsOfHead('a'.repeat(64), png.length, png);
    const refusalOf = (name: string, downloadOnly = false) => {
      try {
        acceptHeldContent(name, facts, downloadOnly);
        return null;
      } catch (err) {
        return err instanceof Refusal ? [err.reason, err.values.name] : err;
      }
    };
    expect(refusalOf('img/a.png')).toBeNull();
    expect(refusalOf('img/b.png')).toBeNull();
    // The same bytes under a text name, after being accepted as an image: looked at again.
    expect(refusalOf('evil\u200b.html')).toEqual(['typeMismatch', 'evil\\u200b.html']);
    expect(refusalOf('img/a.png')).toBeNull();
    expect(refusalOf('files/a.html', true)).toBeNull();
    expect(refusalOf('files/b.html')).toEqual(['typeMismatch', 'files/b.html']);
    const elf = factsOfHead('b'.repeat(64), 64, bytes([0x7f, 0x45, 0x4c, 0x46], [2, 1, 1]));
    for (let i = 0; i < 2; i++) {
      expect(() => acceptHeldContent('bin/tool.png', elf, true)).toThrow(Refusal);
    }
  });

  it('tells binary from text exactly as a loop over every byte would, at any alignment', () => {
    const byByte = (h: Buffer) => {
      if (h.includes(0)) return true;
      let controls = 0;
      for (const b of h) if (b < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d, 0x1b].includes(b)) controls++;
      return controls > h.length / 10;
    };
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const verdicts = new Set<boolean>();
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(rand() * 70);
      // Mostly text, with a share of control bytes that straddles the one in ten that decides.
      const share = rand() * 0.25;
      const bytes = Buffer.alloc(length + 8);
      for (let k = 0; k < bytes.length; k++) {
        bytes[k] = rand() < share ? 1 + Math.floor(rand() * 0x1f) : 0x20 + Math.floor(rand() * 0xe0);
      }
      const h = bytes.subarray(round % 4, (round % 4) + length);
      expect(looksBinary(h), h.toString('hex')).toBe(byByte(h));
      verdicts.add(byByte(h));
    }
    expect([...verdicts].sort()).toEqual([false, true]);
    expect(looksBinary(Buffer.from('<p>第一行\r\n\t第二行\f\u001b[0m</p>\n'.repeat(50)))).toBe(false);
    expect(looksBinary(Buffer.from([0x41, 0x42, 0x43, 0x44, 0x00]))).toBe(true);
  });

  it('accepts files whose bytes match their extension', () => {
    expect(check('png', png)).toBeNull();
    expect(check('jpg', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF'))).toBeNull();
    expect(check('gif', bytes('GIF89a', [1, 0, 1, 0]))).toBeNull();
    expect(check('webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '))).toBeNull();
    expect(check('ico', bytes([0, 0, 1, 0, 1, 0]))).toBeNull();
    expect(check('avif', bytes([0, 0, 0, 0x1c], 'ftypavif'))).toBeNull();
    expect(check('woff2', bytes('wOF2', [0, 1]))).toBeNull();
    expect(check('ttf', bytes([0, 1, 0, 0, 0, 0x10]))).toBeNull();
    expect(check('pdf', bytes('%PDF-1.7\n'))).toBeNull();
    expect(check('wasm', bytes([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeNull();
    expect(check('mp3', bytes('ID3', [4, 0]))).toBeNull();
    expect(check('mp4', bytes([0, 0, 0, 0x20], 'ftypisom'))).toBeNull();
    expect(check('ogg', bytes('OggS', [0]))).toBeNull();
    expect(check('html', html)).toBeNull();
    expect(check('css', Buffer.from('body { color: red }'))).toBeNull();
    expect(
      check('svg', Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')),
    ).toBeNull();
    expect(check('js', Buffer.from('#!/usr/bin/env node\nconsole.log(1)'))).toBeNull();
    expect(check('zip', bytes('7z', [0xbc, 0xaf, 0x27, 0x1c]))).toBeNull();
  });

  it('refuses files whose bytes contradict their extension', () => {
    expect(check('png', html)).toBe('typeMismatch');
    expect(check('jpg', png)).toBe('typeMismatch');
    expect(check('html', png)).toBe('typeMismatch');
    expect(check('txt', bytes('abc', [0], 'def'))).toBe('typeMismatch');
    expect(check('svg', html)).toBe('typeMismatch');
    expect(check('zip', Buffer.from('not an archive'))).toBe('typeMismatch');
  });

  it('refuses executables whatever their name', () => {
    const elf = bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], Array(56).fill(0));
    const pe = Buffer.alloc(128);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(64, 0x3c);
    pe.write('PE\0\0', 64, 'latin1');
    expect(check('png', elf)).toBe('executable');
    expect(check('js', elf)).toBe('executable');
    expect(check('txt', pe)).toBe('executable');
    expect(check('html', bytes([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]))).toBe('executable');
    expect(check('txt', Buffer.from('#!/bin/sh\nrm -rf /'))).toBe('executable');
    expect(check('txt', Buffer.from('MZ is a fine start for a text file'))).toBeNull();
  });

  it('checks the types real sites load: fonts, colour profiles, 3D models, captions', () => {
    const at = (offset: number, magic: string) => {
      const b = Buffer.alloc(offset + 16);
      b.write(magic, offset, 'latin1');
      return b;
    };
    expect(check('eot', at(34, 'LP'))).toBeNull();
    expect(check('eot', html)).toBe('typeMismatch');
    expect(check('icc', at(36, 'acsp'))).toBeNull();
    expect(check('icc', png)).toBe('typeMismatch');
    expect(check('pfb', bytes([0x80, 0x01, 0x10, 0, 0, 0], '%!PS'))).toBeNull();
    // pdf.js's standard fonts (FoxitDingbats.pfb...) are bare CFF data under the .pfb name.
    expect(check('pfb', bytes([0x01, 0x00, 0x04, 0x02, 0x00, 0x01]))).toBeNull();
    expect(check('pfb', bytes([0x01, 0x00, 0x04, 0x09, 0x00, 0x01]))).toBe('typeMismatch');
    expect(check('pfb', html)).toBe('typeMismatch');
    expect(check('glb', bytes('glTF', [2, 0, 0, 0]))).toBeNull();
    expect(check('glb', html)).toBe('typeMismatch');
    expect(check('gltf', Buffer.from('{"asset":{"version":"2.0"}}'))).toBeNull();
    expect(check('gltf', bytes('{', [0], '}'))).toBe('typeMismatch');
    expect(check('vtt', Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\n你好'))).toBeNull();
    // pdf.js's character maps have no signature: binary is fine, an executable is not.
    expect(check('bcmap', bytes([0xe0, 0x01, 0, 0, 0x55]))).toBeNull();
    expect(check('bcmap', bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], Array(56).fill(0)))).toBe('executable');
  });

  it('checks download-only files for executables only', () => {
    const downloadOnly = (head: Buffer) => reasonOf(() => checkContent('f', 'gz', head, head.length, true));
    expect(downloadOnly(bytes([0x1f, 0x8b, 8, 0, 0, 0]))).toBeNull();
    expect(downloadOnly(Buffer.from('MIT License'))).toBeNull();
    expect(downloadOnly(bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], Array(56).fill(0)))).toBe('executable');
    expect(downloadOnly(Buffer.from('#!/usr/bin/env python\nprint(1)'))).toBe('executable');
  });

  it('tells archive formats by magic bytes', () => {
    expect(archiveFormatOf(bytes('PK', [3, 4]))).toBe('zip');
    expect(archiveFormatOf(bytes('7z', [0xbc, 0xaf, 0x27, 0x1c]))).toBe('7z');
    expect(archiveFormatOf(bytes('Rar!', [0x1a, 7, 1, 0]))).toBe('rar');
    expect(archiveFormatOf(Buffer.from('hello'))).toBeNull();
  });

  it('labels UTF-8 text as such and leaves other text unlabelled', () => {
    expect(mediaTypeFor('html', true)).toBe('text/html; charset=utf-8');
    expect(mediaTypeFor('html', false)).toBe('text/html');
    expect(mediaTypeFor('json', true)).toBe('application/json; charset=utf-8');
    expect(mediaTypeFor('svg', true)).toBe('image/svg+xml; charset=utf-8');
    expect(mediaTypeFor('png', true)).toBe('image/png');
    // Extensions the table lacks: the mime-types package's answer (loaded on this first use).
    expect(mediaTypeFor('log', true)).toBe('text/plain');
    expect(mediaTypeFor('no-such-ext', true)).toBe('application/octet-stream');
    expect(['shtml', 'svgz', 'log', 'html'].map(unreadActiveType)).toEqual([true, true, false, false]);
  });
});

describe('site tree', () => {
  it('unwraps the single top-level folder, repeatedly', () => {
    expect(unwrapSingleFolder(['site/index.html', 'site/css/a.css'])).toEqual(['index.html', 'css/a.css']);
    expect(unwrapSingleFolder(['a/b/index.html', 'a/b/c.css'])).toEqual(['index.html', 'c.css']);
    expect(unwrapSingleFolder(['index.html', 'css/a.css'])).toEqual(['index.html', 'css/a.css']);
    expect(unwrapSingleFolder(['a/x.html', 'b/y.html'])).toEqual(['a/x.html', 'b/y.html']);
    expect(unwrapSingleFolder(['site/a.html', 'site.html'])).toEqual(['site/a.html', 'site.html']);
  });

  it('finds the entry file', () => {
    expect(findEntryFile(['about.html', 'index.html', 'index.htm'])).toBe('index.html');
    expect(findEntryFile(['about.html', 'index.htm'])).toBe('index.htm');
    expect(findEntryFile(['home.html', 'css/a.css', 'docs/index.html'])).toBe('home.html');
    expect(findEntryFile(['a.html', 'b.html'])).toBeNull();
    expect(findEntryFile(['docs/index.html'])).toBeNull();
    expect(findEntryFile(['Index.HTML'])).toBe('Index.HTML');
  });
});
