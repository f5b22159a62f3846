import { describe, expect, it } from 'vitest';
import {
  acceptedEncodings,
  etagFor,
  httpDate,
  ifRangeAllows,
  isNotModified,
  noneMatchHits,
  parseRange,
  preconditionsHold,
} from './http-conditions.js';

describe('acceptedEncodings', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['gzip, deflate, br, zstd', ['br', 'gzip']],
    ['gzip', ['gzip']],
    ['x-gzip', ['gzip']],
    ['br;q=0.5, gzip;q=0.9', ['gzip', 'br']],
    ['br;q=0, gzip', ['gzip']],
    ['*', ['br', 'gzip']],
    ['*;q=0.1, gzip;q=0', ['br']],
    ['identity', []],
    ['GZIP, BR', ['br', 'gzip']],
    ['br ; q=1.0 , gzip ; q=1.0', ['br', 'gzip']],
  ] as Array<[string | undefined, string[]]>)('%j → %j', (header, expected) => {
    expect(acceptedEncodings(header)).toEqual(expected);
  });
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-0', 100, { start: 0, end: 0 }],
    ['bytes=99-99', 100, { start: 99, end: 99 }],
    ['bytes=10-19', 100, { start: 10, end: 19 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=90-1000', 100, { start: 90, end: 99 }],
    ['bytes=-1', 100, { start: 99, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['Bytes = 1 - 2', 100, { start: 1, end: 2 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=100-200', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, null],
    ['bytes=0-1, 5-', 100, null],
    ['bytes=5-4', 100, null],
    ['bytes=-', 100, null],
    ['bytes=a-b', 100, null],
    ['items=0-1', 100, null],
    ['bytes=0-0', 0, null],
  ] as const)('%s of %i bytes → %j', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('validators', () => {
  const sha = 'ab'.repeat(32);
  const tag = etagFor(sha);

  it('makes strong ETags from the hash, one per encoding', () => {
    expect(tag).toBe(`"${sha.slice(0, 32)}"`);
    expect(etagFor(sha, 'br')).toBe(`"${sha.slice(0, 32)}-br"`);
    expect(etagFor(sha, 'gzip')).toBe(`"${sha.slice(0, 32)}-gz"`);
  });

  it('matches If-None-Match weakly, in lists, and *', () => {
    expect(noneMatchHits(tag, tag)).toBe(true);
    expect(noneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(noneMatchHits(`"x", ${tag}`, tag)).toBe(true);
    expect(noneMatchHits(`"x",W/${tag} ,"y"`, tag)).toBe(true);
    expect(noneMatchHits('*', tag)).toBe(true);
    expect(noneMatchHits('"x"', tag)).toBe(false);
    expect(noneMatchHits(etagFor(sha, 'br'), tag)).toBe(false);
    expect(noneMatchHits(sha.slice(0, 32), tag)).toBe(false);
  });

  it('lets If-None-Match decide over If-Modified-Since', () => {
    const lastModified = new Date('2025-01-02T03:04:05.678Z');
    const since = lastModified.toUTCString();
    expect(isNotModified({ 'if-modified-since': since }, tag, lastModified)).toBe(true);
    expect(isNotModified({ 'if-modified-since': 'Thu, 01 Jan 2025 00:00:00 GMT' }, tag, lastModified)).toBe(
      false,
    );
    expect(isNotModified({ 'if-modified-since': 'garbage' }, tag, lastModified)).toBe(false);
    // Date.parse reads these; they are no HTTP-date, so the header is ignored.
    expect(isNotModified({ 'if-modified-since': '2099-01-01' }, tag, lastModified)).toBe(false);
    expect(isNotModified({ 'if-modified-since': '2099' }, tag, lastModified)).toBe(false);
    expect(isNotModified({ 'if-modified-since': since }, tag)).toBe(false);
    expect(isNotModified({ 'if-none-match': '"other"', 'if-modified-since': since }, tag, lastModified)).toBe(
      false,
    );
  });

  it('honours If-Range only for a strong, current validator', () => {
    const lastModified = new Date('2025-01-02T03:04:05Z');
    expect(ifRangeAllows(undefined, tag)).toBe(true);
    expect(ifRangeAllows(tag, tag)).toBe(true);
    expect(ifRangeAllows(`W/${tag}`, tag)).toBe(false);
    expect(ifRangeAllows('"stale"', tag)).toBe(false);
    expect(ifRangeAllows(lastModified.toUTCString(), tag, lastModified)).toBe(true);
    expect(ifRangeAllows('Thu, 01 Jan 2025 00:00:00 GMT', tag, lastModified)).toBe(false);
    expect(ifRangeAllows(lastModified.toUTCString(), tag)).toBe(false);
  });

  it('holds If-Match strongly and If-Unmodified-Since to the second; If-Match decides when present', () => {
    const lastModified = new Date('2025-01-02T03:04:05Z');
    expect(preconditionsHold({}, tag, lastModified)).toBe(true);
    expect(preconditionsHold({ 'if-match': tag }, tag)).toBe(true);
    expect(preconditionsHold({ 'if-match': `"a", ${tag}` }, tag)).toBe(true);
    expect(preconditionsHold({ 'if-match': '*' }, tag)).toBe(true);
    expect(preconditionsHold({ 'if-match': `W/${tag}` }, tag)).toBe(false);
    expect(preconditionsHold({ 'if-match': '"stale"' }, tag)).toBe(false);
    expect(preconditionsHold({ 'if-unmodified-since': lastModified.toUTCString() }, tag, lastModified)).toBe(
      true,
    );
    expect(
      preconditionsHold({ 'if-unmodified-since': 'Thu, 01 Jan 2025 00:00:00 GMT' }, tag, lastModified),
    ).toBe(false);
    expect(preconditionsHold({ 'if-unmodified-since': 'not a date' }, tag, lastModified)).toBe(true);
    expect(
      preconditionsHold(
        { 'if-match': tag, 'if-unmodified-since': 'Thu, 01 Jan 2025 00:00:00 GMT' },
        tag,
        lastModified,
      ),
    ).toBe(true);
  });
});

describe('httpDate', () => {
  it('reads the three forms of RFC 9110 §5.6.7 and nothing else', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(httpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(httpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(t);
    expect(httpDate('Sun Nov  6 08:49:37 1994')).toBe(t);
    for (const no of [
      '2030-01-01',
      '2030',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 PST',
      'now',
      '',
    ])
      expect(httpDate(no), no).toBeNaN();
  });
});
