import { describe, expect, it } from 'vitest';
import { decodeSitePath, splitSiteUrl } from './site-path.js';

describe('decodeSitePath', () => {
  const accepted: Array<[string, string]> = [
    ['', ''],
    ['index.html', 'index.html'],
    ['docs/', 'docs/'],
    ['docs/guide/intro.html', 'docs/guide/intro.html'],
    ['a.html?x=1&y=../..', 'a.html'],
    ['?x=../..', ''],
    ['docs/?page=2', 'docs/'],
    ['%E4%B8%AD%E6%96%87/%E9%A6%96%E9%A1%B5.html', '中文/首页.html'],
    ['%e4%b8%ad.html', '中.html'],
    ['中文.html', '中文.html'],
    ['%F0%9F%98%80.png', '😀.png'],
    ['caf%C3%A9.html', 'café.html'],
    // NFD on the wire (macOS names) finds the NFC name the ingest stored.
    ['cafe%CC%81.html', 'café.html'],
    ['%20space%20.html', ' space .html'],
    ['a+b.html', 'a+b.html'],
    ['a%2Bb.html', 'a+b.html'],
    ['.well-known/security.txt', '.well-known/security.txt'],
    ['...', '...'],
    ['..a/b..', '..a/b..'],
    ['a.b/c', 'a.b/c'],
    // Decoded once, never twice: '%252e' is the literal name '%2e'.
    ['%252e%252e/x', '%2e%2e/x'],
    // Look-alikes of '.' are names, not dot segments (NFC does not fold them).
    ['%EF%BC%8E%EF%BC%8E/x', '\uFF0E\uFF0E/x'],
    ['%E2%80%A4%E2%80%A4/x', '\u2024\u2024/x'],
    // A BOM is part of the name, not swallowed by the decoder.
    ['%EF%BB%BFx', '\uFEFFx'],
    ['a#b', 'a#b'],
  ];
  it.each(accepted)('%j → %j', (raw, expected) => {
    expect(decodeSitePath(raw)).toBe(expected);
  });

  const refused: Array<[string, string]> = [
    ['../etc/passwd', 'parent segment'],
    ['..', 'bare parent'],
    ['.', 'bare dot'],
    ['./index.html', 'dot segment'],
    ['a/./b', 'inner dot segment'],
    ['a/../b', 'inner parent segment'],
    ['a/..', 'trailing parent'],
    ['a/../', 'trailing parent with slash'],
    ['%2e%2e/x', 'encoded parent'],
    ['%2E%2e/x', 'mixed-case encoded parent'],
    ['%2E%2E/', 'upper-case encoded parent'],
    ['.%2e/x', 'half-encoded parent'],
    ['%2e./x', 'other half-encoded parent'],
    ['%2e', 'encoded dot'],
    ['a/%2e%2e', 'encoded parent at the end'],
    ['..%2fetc', 'parent with encoded slash'],
    ['%2e%2e%2fetc', 'fully encoded traversal'],
    ['%2f', 'encoded slash'],
    ['a%2Fb', 'encoded slash inside a name'],
    ['a%2fb', 'lower-case encoded slash'],
    ['%5c', 'encoded backslash'],
    ['a%5Cb', 'encoded backslash inside a name'],
    ['..%5c..%5cwindows', 'backslash traversal'],
    ['a\\b', 'raw backslash'],
    ['..\\x', 'raw backslash traversal'],
    ['%c0%ae%c0%ae/x', 'overlong dots'],
    ['%c0%af', 'overlong slash'],
    ['%c1%9c', 'overlong backslash'],
    ['%e0%80%ae', 'three-byte overlong dot'],
    ['%f0%80%80%ae', 'four-byte overlong dot'],
    ['%ed%a0%80', 'encoded surrogate'],
    ['%ff', 'invalid byte'],
    ['%80', 'stray continuation byte'],
    ['%e4%b8', 'truncated sequence'],
    ['%f4%90%80%80', 'beyond U+10FFFF'],
    ['%00', 'NUL'],
    ['a%00.html', 'NUL inside a name'],
    ['index.html%00.png', 'NUL extension trick'],
    ['%0a', 'line feed'],
    ['%0d%0aSet-Cookie:x', 'CRLF'],
    ['%09', 'tab'],
    ['%7f', 'DEL'],
    ['%c2%85', 'C1 control (NEL)'],
    ['a\u0001b', 'raw control character'],
    ['\ud800.html', 'raw lone surrogate'],
    ['/', 'leading slash'],
    ['/etc/passwd', 'absolute path'],
    ['//', 'double slash'],
    ['a//b', 'inner double slash'],
    ['docs//', 'trailing double slash'],
    ['%', 'bare percent'],
    ['%2', 'short escape'],
    ['a%2', 'short escape at the end'],
    ['%zz', 'non-hex escape'],
    ['%%32%65', 'nested escape'],
    ['%u002e%u002e', 'IIS-style escape'],
  ];
  it.each(refused)('%j is refused (%s)', (raw) => {
    expect(decodeSitePath(raw)).toBeNull();
  });
});

describe('splitSiteUrl', () => {
  it('splits the area, key, raw path and query without decoding', () => {
    expect(splitSiteUrl('/sites/12/docs/a%20b.html?x=1')).toEqual({
      area: 'sites',
      key: '12',
      rawPath: 'docs/a%20b.html?x=1',
      query: '?x=1',
    });
    expect(splitSiteUrl('/preview/tok_EN-1/')).toEqual({
      area: 'preview',
      key: 'tok_EN-1',
      rawPath: '',
      query: '',
    });
    expect(splitSiteUrl('/sites/12/%2e%2e/x')?.rawPath).toBe('%2e%2e/x');
  });

  it('marks the root asked without its slash', () => {
    expect(splitSiteUrl('/sites/12?a=1')).toEqual({ area: 'sites', key: '12', rawPath: null, query: '?a=1' });
  });

  it('refuses other URLs', () => {
    for (const url of ['/', '/sites', '/sites/', '/sitesx/1/', '/api/sites/1/', '/preview//x']) {
      expect(splitSiteUrl(url)).toBeNull();
    }
  });
});
