/**
 * Reads the head of a plain HTTP/1.1 GET from the bytes a connection sent, for the connection fast
 * path (serve/fast-connections.ts). It accepts a strict subset of HTTP/1.1 and nothing else: the
 * request line `GET /… HTTP/1.1`, headers of token names and printable ASCII values on CRLF lines,
 * exactly one Host, and none of the headers that give a request a body, change the connection or
 * ask for part of a file. Anything outside that subset — another method or version, obs-fold,
 * bare LF, bytes above 0x7E, a body, a duplicate of a header read here, an incomplete or oversized
 * head — is not an error here: the caller hands the connection, bytes and all, to Node's own
 * parser, which answers it as it always has. So every request read here is one Node's parser
 * reads the same way (server/test/request-head.test.ts feeds both the same bytes), and no request
 * can mean one thing here and another there.
 */

/** The fields of an accepted head the fast path needs. */
export interface RequestHead {
  /** Offset just past the head's blank line: where the next request starts. */
  end: number;
  url: string;
  host: string;
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  userAgent: string | undefined;
  /** Sec-Purpose, or the older Purpose (prefetches). */
  purpose: string | undefined;
  /** Referer (the owner's analytics keep its host, for a page view). */
  referer: string | undefined;
  /** The client address a proxy saw (used with TRUST_PROXY, for page views). */
  forwardedFor: string | undefined;
  /** The connection's peer: not in the bytes, the caller fills it in. */
  remoteAddress: string | undefined;
  /** The port the connection arrived on (which server): not in the bytes, the caller fills it in. */
  localPort: number | undefined;
}

/** The headers that shape the answer, and where they go (Sec-Purpose or the older Purpose). */
const READ = new Map<
  string,
  'acceptEncoding' | 'ifNoneMatch' | 'ifModifiedSince' | 'userAgent' | 'purpose' | 'referer' | 'forwardedFor'
>([
  ['accept-encoding', 'acceptEncoding'],
  ['if-none-match', 'ifNoneMatch'],
  ['if-modified-since', 'ifModifiedSince'],
  ['user-agent', 'userAgent'],
  ['sec-purpose', 'purpose'],
  ['purpose', 'purpose'],
  ['referer', 'referer'],
  ['x-forwarded-for', 'forwardedFor'],
]);

/** What the head does not say decides the answer: any of these hands the request to Node. */
const REFUSED = new Set([
  'content-length',
  'transfer-encoding',
  'upgrade',
  'expect',
  'range',
  'if-range',
  'if-match',
  'if-unmodified-since',
  'http2-settings',
  'te',
  'trailer',
]);

/** Far more than any browser sends, far fewer than Node's maxHeadersCount. */
const MAX_HEADER_LINES = 100;

// `GET`, one space, an origin-form target of visible ASCII, one space, the version.
const REQUEST_LINE = /GET (\/[\x21-\x7e]*) HTTP\/1\.1\r\n/y;
/**
 * The head starting at `start` of `text` (the connection's bytes as latin1), or null when it is
 * not one this module reads (including when it is not complete yet). `maxBytes` is the server's
 * header size limit: a longer head is left to Node, which refuses it.
 */
export function readRequestHead(text: string, start: number, maxBytes: number): RequestHead | null {
  const blank = text.indexOf('\r\n\r\n', start);
  if (blank < 0 || blank - start > maxBytes) return null;
  REQUEST_LINE.lastIndex = start;
  const line = REQUEST_LINE.exec(text);
  if (!line) return null;
  const head: RequestHead = {
    end: blank + 4,
    url: line[1] as string,
    host: '',
    acceptEncoding: undefined,
    ifNoneMatch: undefined,
    ifModifiedSince: undefined,
    userAgent: undefined,
    purpose: undefined,
    referer: undefined,
    forwardedFor: undefined,
    remoteAddress: undefined,
    localPort: undefined,
  };
  let hosts = 0;
  let lines = 0;
  let at = REQUEST_LINE.lastIndex;
  // Header lines until the blank line (which begins at blank + 2). Each line is scanned once, by
  // hand: a regex with optional blanks on both sides of an optional value backtracks in cubic time
  // on a line that fails, and this runs on every connection's first bytes.
  while (at < blank + 2) {
    // Node keeps the first maxHeadersCount headers (2,000) and drops the rest; never near it here.
    if (++lines > MAX_HEADER_LINES) return null;
    const lineEnd = text.indexOf('\r\n', at);
    let colon = at;
    while (colon < lineEnd && isTokenChar(text.charCodeAt(colon))) colon++;
    if (colon === at || text.charCodeAt(colon) !== 0x3a /* : */) return null;
    // The value without the blanks around it, as Node gives it; printable ASCII and tabs only.
    let start = colon + 1;
    let end = lineEnd;
    while (start < end && isBlank(text.charCodeAt(start))) start++;
    while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return null;
    }
    const name = text.slice(at, colon).toLowerCase();
    const value = text.slice(start, end);
    at = lineEnd + 2;
    if (name === 'host') {
      hosts++;
      head.host = value;
    } else if (name === 'connection') {
      // Node keeps the connection open unless told otherwise; anything else it must decide.
      if (value.toLowerCase() !== 'keep-alive') return null;
    } else {
      const field = READ.get(name);
      if (field) {
        // Node joins or drops repeats, each header its own way: a repeat is Node's to read.
        if (head[field] !== undefined) return null;
        head[field] = value;
      } else if (REFUSED.has(name)) return null;
    }
  }
  // HTTP/1.1 needs exactly one Host (Node answers 400 to none or several).
  return hosts === 1 ? head : null;
}

/** RFC 9110 tchar: ! # $ % & ' * + - . ^ _ ` | ~ digits letters. */
function isTokenChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x23 && c <= 0x27) || // # $ % & '
    c === 0x21 ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5e ||
    c === 0x5f ||
    c === 0x60 ||
    c === 0x7c ||
    c === 0x7e
  );
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}
