/**
 * The request headers that shape a static response (RFC 9110): Accept-Encoding, Range, If-Range,
 * If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since. Pure functions of header values,
 * no I/O.
 */

export type ContentEncoding = 'br' | 'gzip';

/** Encodings the client accepts, best first; br wins a tie, q=0 and absent ones are left out. */
export function acceptedEncodings(header: string | undefined): ContentEncoding[] {
  if (!header) return [];
  const qualities = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';');
    const token = name.trim().toLowerCase();
    if (!token) continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (match) q = Number(match[1]);
    }
    qualities.set(token, Number.isFinite(q) ? q : 0);
  }
  const star = qualities.get('*');
  const ranked = (['br', 'gzip'] as const)
    .map((encoding) => ({
      encoding,
      q: qualities.get(encoding) ?? (encoding === 'gzip' ? qualities.get('x-gzip') : undefined) ?? star ?? 0,
    }))
    .filter((entry) => entry.q > 0);
  // Array.prototype.sort is stable: equal qualities keep br before gzip.
  return ranked.sort((a, b) => b.q - a.q).map((entry) => entry.encoding);
}

export interface ByteRangeRequest {
  start: number;
  end: number;
}

/**
 * One byte range, clamped to the file; 'unsatisfiable' for a range that starts past the end; null
 * when the header is to be ignored (malformed, several ranges, or an empty file): the caller then
 * sends the whole file with 200, never multipart.
 */
export function parseRange(header: string, size: number): ByteRangeRequest | 'unsatisfiable' | null {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (size === 0) return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/** A strong validator per representation: the content hash, plus the encoding when compressed. */
export function etagFor(sha256: string, encoding: ContentEncoding | null = null): string {
  const base = sha256.slice(0, 32);
  return encoding ? `"${base}-${encoding === 'br' ? 'br' : 'gz'}"` : `"${base}"`;
}

function entityTags(header: string): string[] {
  return [...header.matchAll(/(?:W\/)?"([^"]*)"/g)].map((m) => m[1] ?? '');
}

/** If-None-Match uses the weak comparison: W/"x" matches "x"; '*' matches anything. */
export function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '').slice(1, -1);
  return entityTags(header).includes(opaque);
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/**
 * The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and
 * asctime's. Anything else (`2030-01-01`, a bare year) is no date: Date.parse read those too, and a
 * made-up If-Modified-Since got a 304 where the RFC says to ignore it.
 */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/** An HTTP-date's time in ms, or NaN when the value is not one (then the header is ignored). */
export function httpDate(value: string): number {
  const trimmed = value.trim();
  if (!HTTP_DATE.test(trimmed)) return Number.NaN;
  // asctime's form names no zone: it is GMT all the same.
  return Date.parse(trimmed.endsWith('GMT') ? trimmed : `${trimmed} GMT`);
}

/**
 * The preconditions of RFC 9110 §13.2.2 steps 1–2: false when the answer must be 412. If-Match
 * decides when present ('*' matches any current file; entity tags compare strongly, so a weak tag
 * never matches); otherwise If-Unmodified-Since fails when the file changed after that date. An
 * unparsable date is ignored, as the RFC says.
 */
export function preconditionsHold(
  headers: { 'if-match'?: string | undefined; 'if-unmodified-since'?: string | undefined },
  etag: string,
  lastModified?: Date,
): boolean {
  const match = headers['if-match'];
  if (match !== undefined) {
    if (match.trim() === '*') return true;
    return [...match.matchAll(/(W\/)?"([^"]*)"/g)].some((m) => !m[1] && `"${m[2]}"` === etag);
  }
  const since = headers['if-unmodified-since'];
  if (since === undefined || !lastModified) return true;
  const sinceMs = httpDate(since);
  return !Number.isFinite(sinceMs) || seconds(lastModified) <= Math.floor(sinceMs / 1000);
}

/** GET/HEAD answered with 304? If-None-Match decides when present, else If-Modified-Since. */
export function isNotModified(
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
  etag: string,
  lastModified?: Date,
): boolean {
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) return noneMatchHits(noneMatch, etag);
  const since = headers['if-modified-since'];
  if (since === undefined || !lastModified) return false;
  const sinceMs = httpDate(since);
  return Number.isFinite(sinceMs) && seconds(lastModified) <= Math.floor(sinceMs / 1000);
}

/**
 * If-Range: the Range applies only if the client's copy is still current. An entity tag must match
 * strongly (a weak one never does); a date must equal Last-Modified exactly.
 */
export function ifRangeAllows(header: string | undefined, etag: string, lastModified?: Date): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  const dateMs = httpDate(value);
  return !!lastModified && Number.isFinite(dateMs) && seconds(lastModified) === Math.floor(dateMs / 1000);
}
