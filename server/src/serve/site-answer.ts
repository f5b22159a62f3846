/**
 * The answer to a request for one stored site file, decided once and as plain data: status, the
 * whole header list (the site's sandbox headers from serve/site-headers.ts first, then
 * Cache-Control, Last-Modified, Vary, ETag, Content-Type, Content-Disposition, Accept-Ranges,
 * Content-Encoding, Content-Range, Content-Length) and where the body comes from. Conditional
 * requests (412, 304), a single byte range (206/416), compression negotiation, HEAD, and the site's own
 * 404.html are decided here and nowhere else (docs/architecture.md "Serving a site").
 *
 * Its writers only put an answer on their transport: the Fastify route (serve/send.ts), Node's
 * request event and a connection's bytes (serve/fast-path.ts, serve/fast-connections.ts). The
 * header lists are built once per file, encoding and set of options and kept, so a hot file's
 * answer costs a few identity comparisons. What is kept lives on each file's record (a WeakMap
 * keyed by the file); no call leaves state behind for the next one.
 */
import { messages } from '@sitehall/contracts';
import {
  attachmentDisposition,
  contentTypeHeader,
  isCompressible,
  isDocument,
  isHtml,
  isInlineWebContent,
} from './content-types.js';
import {
  acceptedEncodings,
  type ByteRangeRequest,
  type ContentEncoding,
  etagFor,
  ifRangeAllows,
  isNotModified,
  parseRange,
  preconditionsHold,
} from './http-conditions.js';
import type { SiteFile } from './resolve.js';
import type { EncodedBody, SiteFileSource } from './site-file-source.js';

/** What of a request shapes a site file's answer (header values as received, joined when repeated). */
export interface SiteFileRequest {
  method: string;
  range?: string | undefined;
  ifRange?: string | undefined;
  acceptEncoding?: string | undefined;
  ifMatch?: string | undefined;
  ifUnmodifiedSince?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

export interface SiteAnswerOptions {
  /** 404 when sending the site's own 404.html: no validators, no ranges, no 304. */
  status?: 200 | 404;
  /** When the deployment went live; sent as Last-Modified and honoured in If-Modified-Since. */
  lastModified?: Date;
  /**
   * Replaces the default Cache-Control ('no-cache' for HTML so a new deployment shows at once,
   * 'public, max-age=300' for assets); previews pass 'private, no-store'.
   */
  cacheControl?: string;
  /**
   * The headers every response of this area carries (serve/site-headers.ts, plus HSTS on an https
   * sites origin), first in the list. Pass the same object each time: answers are kept per object.
   */
  siteHeaders?: Readonly<Record<string, string>>;
}

/** Where an answer's body comes from: the file (plain or a variant, maybe a range) or nothing. */
export interface SiteAnswerBody {
  encoding: ContentEncoding | null;
  range: ByteRangeRequest | null;
  /** Where the source's memory keeps the whole body (SiteFileSource.memoryKey); null: never. */
  memoryKey: string | null;
}

export interface SiteAnswer {
  status: 200 | 206 | 301 | 302 | 303 | 304 | 307 | 308 | 404 | 412 | 416;
  /**
   * [name, value, name, value, ...], lower-case names. The same array for the same file, encoding,
   * status and options: writers may keep what they make of it (fast-connections keeps the bytes).
   */
  headers: readonly string[];
  /** null: no body (304, 412, 416, and HEAD, whose headers still say the GET's length). */
  body: SiteAnswerBody | null;
}

const ASSET_CACHE = 'public, max-age=300';
export const HTML_CACHE = 'no-cache';
const NO_SITE_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The answer to a GET or HEAD (the caller refuses other methods) of `file`. Synchronous when the
 * encoding to send is known without I/O; otherwise the source is asked (a variant looked up or
 * made) first.
 */
export function siteFileAnswer(
  file: SiteFile,
  request: SiteFileRequest,
  source: SiteFileSource,
  opts: SiteAnswerOptions = {},
): SiteAnswer | Promise<SiteAnswer> {
  const range = rangeOf(file, request, opts);
  const encoded =
    range === null && !declaresEncoding(file, opts) ? knownEncoding(file, request, source) : null;
  if (encoded !== undefined) return decide(file, request, source, opts, range, encoded);
  // knownEncoding left the parsed list on the file's facts.
  return source
    .pickEncoding(file, factsOf(file).acceptedList)
    .then((picked) => decide(file, request, source, opts, range, picked));
}

/**
 * The answer to a plain GET (no Range) when everything it needs is in memory — the encoding to
 * send, and the body (a 304 needs none) — else null. The fast paths' entry: the same decision as
 * siteFileAnswer, without waiting for anything.
 */
export function preparedAnswer(
  file: SiteFile,
  request: SiteFileRequest,
  source: SiteFileSource,
  opts: SiteAnswerOptions,
): PreparedAnswer | null {
  const encoded = declaresEncoding(file, opts) ? null : knownEncoding(file, request, source);
  if (encoded === undefined) return null;
  const answer = decide(file, request, source, opts, null, encoded);
  if (answer.body === null) return { status: answer.status, headers: answer.headers, body: null };
  const key = answer.body.memoryKey;
  const body = key === null ? undefined : source.fromMemoryKey(key);
  return body ? { status: answer.status, headers: answer.headers, body } : null;
}

/** An answer with its body in hand, for writers that send it at once (the fast paths). */
export interface PreparedAnswer {
  status: SiteAnswer['status'];
  headers: readonly string[];
  body: Buffer | null;
}

/**
 * A redirect: a folder asked for without its slash ('./docs/', 302) or a site's own rule (any
 * redirect status). Not cached for long, whatever its status: deployments change.
 */
export function siteRedirectAnswer(location: string, status: SiteAnswer['status'] = 302): SiteAnswer {
  return { status, headers: ['location', location, 'cache-control', HTML_CACHE], body: null };
}

// ---- The platform's own pages ---------------------------------------------------------------------

/**
 * What the platform itself answers at a site address when no file of the site can (a site that
 * is not live, a bad path, an expired preview link, an outage): a small page in Chinese for the
 * visitor's browser, never the API's JSON envelope, with the platform's mark and, where the app's
 * address is known, a link back to the showcase. Self-contained (no script, no stylesheet or image
 * to load: the mark is inline SVG, the styles a <style> element, which the site headers' CSP,
 * `sandbox` alone, allows). Nothing of the request (path, query, token) is written into it; the
 * showcase link comes from the configuration or a Host checked to be a plain name
 * (serve/site-hosts.ts showcaseUrl), and is escaped all the same. A site's own 404.html, where it
 * has one, is a file answer (siteFileAnswer with status 404) and wins over this page.
 */
export interface SitePlatformPage {
  status: number;
  /** [name, value, ...]: Content-Type and Cache-Control; the site headers are added by the writer. */
  headers: readonly string[];
  body: string;
}

export interface SitePlatformPageOptions {
  /** The heading under the status; by default the status's own title. */
  title?: string;
  /** A second line: what the visitor can do. */
  hint?: string;
  /** The showcase's address (a link 返回站点展厅), or null for none. */
  showcase?: string | null;
}

const PAGE_TITLES: Record<number, string> = {
  400: '地址无效',
  404: '页面不存在',
  408: '请求超时',
  431: '请求头过长',
  500: '服务器出错了',
  503: '服务暂时不可用',
  507: '服务器存储空间不足',
};

/** 404's text: a missing file, or a site not live (the same words, so the two can't be told apart). */
export const SITE_NOT_FOUND_TEXT = messages.common.siteNotFound;

/** The hall mark of the web app's BrandLogo (web/src/components/BrandLogo.tsx), inline. */
const BRAND_MARK =
  '<svg width="32" height="32" viewBox="0 0 32 32" aria-hidden="true">' +
  '<rect width="32" height="32" rx="8" fill="#4f46e5"/>' +
  '<path d="M7 13.5 16 8l9 5.5" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>' +
  '<path d="M10 14.5v8M16 14.5v8M22 14.5v8M7.5 24.5h17" stroke="#fff" stroke-width="2.2" stroke-linecap="round"/></svg>';

const PAGE_STYLE =
  'body{margin:0;background:#f5f5f5;color:#1f1f1f;font:16px/1.6 -apple-system,BlinkMacSystemFont,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif}' +
  'main{box-sizing:border-box;max-width:34em;margin:10vh auto 0;padding:2em 1.5em;text-align:center}' +
  '.brand{display:inline-flex;align-items:center;gap:.5em;font-weight:600;font-size:1.1em;color:#1f1f1f;text-decoration:none}' +
  '.status{margin:1.2em 0 0;font-size:3em;line-height:1.2;color:#8c8c8c;font-weight:600}' +
  'h1{margin:.2em 0 .6em;font-size:1.4em}p{margin:.4em 0;color:#595959}' +
  '.back{display:inline-block;margin-top:1.4em;padding:.45em 1.2em;border-radius:6px;background:#4f46e5;color:#fff;text-decoration:none}' +
  '.back:focus-visible{outline:2px solid #1f1f1f;outline-offset:2px}';

/**
 * The page for `status` saying `text` (a message of packages/contracts). A 404 may be revalidated
 * (the site may go live); anything else is never stored (an outage ends).
 */
export function sitePlatformPage(
  status: number,
  text: string,
  opts: SitePlatformPageOptions = {},
): SitePlatformPage {
  const heading =
    opts.title ?? PAGE_TITLES[status] ?? (status >= 500 ? PAGE_TITLES[500]! : PAGE_TITLES[400]!);
  const home = opts.showcase ?? null;
  const body =
    '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">' +
    `<title>${escapeHtml(`${status} ${heading} · 站点展厅`)}</title>` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    `<style>${PAGE_STYLE}</style></head><body><main>` +
    (home
      ? `<a class="brand" href="${escapeHtml(home)}">${BRAND_MARK}<span>站点展厅</span></a>`
      : `<span class="brand">${BRAND_MARK}<span>站点展厅</span></span>`) +
    `<p class="status">${status}</p><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>` +
    (opts.hint ? `<p>${escapeHtml(opts.hint)}</p>` : '') +
    (home
      ? `<a class="back" href="${escapeHtml(home)}">${escapeHtml(messages.common.backToShowcase)}</a>`
      : '') +
    '</main></body></html>';
  return {
    status,
    headers: [
      'content-type',
      'text/html; charset=utf-8',
      'cache-control',
      status === 404 ? HTML_CACHE : 'no-store',
    ],
    body,
  };
}

/** A site's 404: a missing file or a site not live, one page for both. */
export function siteNotFoundPage(showcase: string | null): SitePlatformPage {
  return sitePlatformPage(404, SITE_NOT_FOUND_TEXT, { hint: messages.common.siteNotFoundHint, showcase });
}

/**
 * What a browser gets when it checks a service worker of a site that is not live (the request says
 * `Service-Worker: script`): a worker that replaces it, unregisters itself at once and reloads the
 * pages it controlled, so they reach the platform's 404. A 404 would leave the old worker running
 * (Chromium keeps a worker whose update fails), answering from its cache or its own script.
 * Its registration's scope is the old worker's own, so it ends nothing else of the origin.
 */
export const SITE_GONE_WORKER: SitePlatformPage = {
  status: 200,
  headers: [
    'content-type',
    'text/javascript; charset=utf-8',
    'cache-control',
    'no-store',
    'x-content-type-options',
    'nosniff',
  ],
  body:
    "self.addEventListener('install', () => self.skipWaiting());\n" +
    "self.addEventListener('activate', (event) => {\n" +
    '  event.waitUntil(\n' +
    '    self.registration\n' +
    '      .unregister()\n' +
    "      .then(() => self.clients.matchAll({ type: 'window' }))\n" +
    '      .then((pages) => Promise.all(pages.map((page) => page.navigate(page.url).catch(() => null)))),\n' +
    '  );\n' +
    '});\n',
};

/**
 * A preview link that opens nothing (expired, revoked, its version rejected, its maker disabled,
 * or never valid): 404 like every missing thing, not 410, since a link whose maker is enabled
 * again works again, and an expired token is purged after a while (docs/decisions/serving.md).
 */
export function previewGonePage(showcase: string | null): SitePlatformPage {
  return sitePlatformPage(404, messages.common.previewGone, {
    title: messages.common.previewGoneTitle,
    hint: messages.common.previewGoneHint,
    showcase,
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// ---- Deciding ------------------------------------------------------------------------------------

/** Range applies to GET of the plain bytes only; a stale If-Range or several ranges mean "send it all". */
function rangeOf(
  file: SiteFile,
  request: SiteFileRequest,
  opts: SiteAnswerOptions,
): ByteRangeRequest | 'unsatisfiable' | null {
  if ((opts.status ?? 200) !== 200 || request.method !== 'GET' || request.range === undefined) return null;
  if (!ifRangeAllows(request.ifRange, factsOf(file).etag, opts.lastModified)) return null;
  return parseRange(request.range, file.size);
}

/**
 * The variant to send (null: the plain bytes) when known without I/O, undefined when the source
 * must be asked (with the file's acceptedList, the list just parsed). Browsers send the same
 * Accept-Encoding every time: each file keeps the last header it saw parsed, and its answer to it.
 */
function knownEncoding(
  file: SiteFile,
  request: SiteFileRequest,
  source: SiteFileSource,
): EncodedBody | null | undefined {
  const facts = factsOf(file);
  if (!facts.compressible || file.size < source.minCompressBytes) return null;
  const accept = request.acceptEncoding;
  if (accept !== facts.acceptHeader) {
    facts.acceptedList = acceptedEncodings(accept);
    facts.acceptHeader = accept;
  }
  const list = facts.acceptedList;
  if (list.length === 0) return null;
  if (facts.accepted !== list) {
    const known = source.knownEncoding(file, list);
    if (known === undefined) return undefined;
    // A variant's size never changes once known (blobs are immutable): safe to keep.
    facts.accepted = list;
    facts.encoded = known;
  }
  return facts.encoded;
}

/**
 * A refusal's headers (412, 416): the file's without its Cache-Control. Neither status is
 * cacheable by default, and a lifetime given to it would let a shared cache keep the refusal and
 * answer the file's next plain GET with it; nginx gives errors no lifetime either.
 */
function uncached(headers: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i]!.toLowerCase() === 'cache-control') continue;
    kept.push(headers[i]!, headers[i + 1]!);
  }
  return kept;
}

function decide(
  file: SiteFile,
  request: SiteFileRequest,
  source: SiteFileSource,
  opts: SiteAnswerOptions,
  range: ByteRangeRequest | 'unsatisfiable' | null,
  encoded: EncodedBody | null,
): SiteAnswer {
  const p = preparedHeaders(file, source, opts, encoded);
  // RFC 9110 §13.2.2: the preconditions first (412), then If-None-Match/If-Modified-Since (304),
  // then If-Range and Range. A 404 (the site's own 404.html) ignores them all (§13.2.1).
  if (p.status === 200) {
    if (
      (request.ifMatch !== undefined || request.ifUnmodifiedSince !== undefined) &&
      !preconditionsHold(
        { 'if-match': request.ifMatch, 'if-unmodified-since': request.ifUnmodifiedSince },
        p.etag,
        opts.lastModified,
      )
    ) {
      return { status: 412, headers: uncached(p.notModified), body: null };
    }
    const noneMatch = request.ifNoneMatch;
    const since = request.ifModifiedSince;
    if (
      (noneMatch !== undefined || since !== undefined) &&
      isNotModified({ 'if-none-match': noneMatch, 'if-modified-since': since }, p.etag, opts.lastModified)
    ) {
      return { status: 304, headers: p.notModified, body: null };
    }
  }
  if (range === 'unsatisfiable') {
    return {
      status: 416,
      headers: [...uncached(p.notModified), 'content-range', `bytes */${file.size}`],
      body: null,
    };
  }
  if (range) {
    return {
      status: 206,
      headers: [
        ...p.notModified,
        ...p.content,
        'content-range',
        `bytes ${range.start}-${range.end}/${file.size}`,
        'content-length',
        String(range.end - range.start + 1),
      ],
      body: { encoding: null, range, memoryKey: null },
    };
  }
  // HEAD: the same headers as GET, no body.
  return { status: p.status, headers: p.whole, body: request.method === 'HEAD' ? null : p.body };
}

// ---- What is kept per file -----------------------------------------------------------------------

interface FileFacts {
  contentType: string;
  disposition: string | undefined;
  compressible: boolean;
  html: boolean;
  /** A page, SVG or XML document: what a visitor navigates to. */
  document: boolean;
  etag: string;
  /** The last Accept-Encoding header asked of this file, and its parsed list. */
  acceptHeader: string | undefined;
  acceptedList: readonly ContentEncoding[];
  /** The last Accept-Encoding list seen for this file and the variant it chose. */
  accepted: readonly ContentEncoding[] | null;
  encoded: EncodedBody | null;
  /** Header lists built for this file (a few: plain and variant, live and preview). */
  prepared: Prepared[];
}

/** What a file's type and hash mean for serving, worked out once per file record. */
const facts = new WeakMap<SiteFile, FileFacts>();
function factsOf(file: SiteFile): FileFacts {
  let f = facts.get(file);
  if (!f) {
    const mime = file.mime_type;
    f = {
      contentType: contentTypeHeader(mime),
      disposition: isInlineWebContent(mime) ? undefined : attachmentDisposition(file.path),
      compressible: isCompressible(mime),
      html: isHtml(mime),
      document: isDocument(mime),
      etag: etagFor(file.sha256),
      acceptHeader: undefined,
      acceptedList: [],
      accepted: null,
      encoded: null,
      prepared: [],
    };
    facts.set(file, f);
  }
  return f;
}

/**
 * A site's _headers gave this file its Content-Encoding (a precompressed file stored as such,
 * serve/site-rules.ts): its bytes are sent as they are, never compressed again.
 */
function declaresEncoding(file: SiteFile, opts: SiteAnswerOptions): boolean {
  const declared = opts.siteHeaders?.['content-encoding'];
  return declared !== undefined && storedAs(file.path, declared);
}

/** The file's name says it is stored in this encoding: `gzip` for `.gz`, `br` for `.br`. */
function storedAs(filePath: string, encoding: string): boolean {
  return encoding === 'gzip' ? /\.gz$/i.test(filePath) : encoding === 'br' && /\.br$/i.test(filePath);
}

/** A file's headers for one encoding, status and set of options. */
interface Prepared {
  /** What they were built for (identities). */
  status: 200 | 404;
  lastModified: Date | undefined;
  cacheControl: string | undefined;
  siteHeaders: Readonly<Record<string, string>>;
  encoded: EncodedBody | null;
  etag: string;
  /** The 304's headers: those every answer about the file carries. */
  notModified: string[];
  /** Content-Type, Content-Disposition, Accept-Ranges (200 only). */
  content: string[];
  /** The whole answer's: notModified, content, Content-Encoding, Content-Length. */
  whole: string[];
  body: SiteAnswerBody;
}

/** Kept per file: enough for plain and variant, live and preview, a site's 404.html. */
const MAX_PREPARED = 4;

function preparedHeaders(
  file: SiteFile,
  source: SiteFileSource,
  opts: SiteAnswerOptions,
  encoded: EncodedBody | null,
): Prepared {
  const f = factsOf(file);
  const status = opts.status ?? 200;
  const siteHeaders = opts.siteHeaders ?? NO_SITE_HEADERS;
  for (const p of f.prepared) {
    if (
      p.encoded === encoded &&
      p.lastModified === opts.lastModified &&
      p.siteHeaders === siteHeaders &&
      p.status === status &&
      p.cacheControl === opts.cacheControl
    )
      return p;
  }
  const p = prepare(file, f, source, status, opts, siteHeaders, encoded);
  if (f.prepared.length >= MAX_PREPARED) f.prepared.shift();
  f.prepared.push(p);
  return p;
}

function prepare(
  file: SiteFile,
  f: FileFacts,
  source: SiteFileSource,
  status: 200 | 404,
  opts: SiteAnswerOptions,
  siteHeaders: Readonly<Record<string, string>>,
  encoded: EncodedBody | null,
): Prepared {
  // The type and encoding a site's _headers may give a file (serve/site-rules.ts) go where the
  // file's own would. An encoding only for a file stored compressed (`.gz`, `.br`): the content
  // check reads a page or script as stored, so its bytes must be what the browser runs.
  const { 'content-type': ownType, 'content-encoding': declared, ...headers } = siteHeaders;
  const ownEncoding = declared !== undefined && storedAs(file.path, declared) ? declared : undefined;
  const compressible = f.compressible && file.size >= source.minCompressBytes && ownEncoding === undefined;
  const etag = encoded ? etagFor(file.sha256, encoded.encoding) : f.etag;
  // A record first, so a name the site headers also set (a preview's Cache-Control) is there once.
  const common: Record<string, string> = { ...headers };
  // A document (a page, SVG, XML) is always revalidated, whatever the site's _headers say: a page
  // taken down must not live on in its visitors' caches.
  common['cache-control'] =
    opts.cacheControl ?? (f.document ? HTML_CACHE : (headers['cache-control'] ?? ASSET_CACHE));
  // Formatted once: prepare runs once per file, encoding and set of options.
  if (opts.lastModified) common['last-modified'] = opts.lastModified.toUTCString();
  if (compressible) common.vary = 'Accept-Encoding';
  if (status === 200) common.etag = etag;
  const notModified = Object.entries(common).flat();
  const content = ['content-type', ownType ?? f.contentType];
  if (f.disposition) content.push('content-disposition', f.disposition);
  if (status === 200) content.push('accept-ranges', 'bytes');
  const whole = [...notModified, ...content];
  if (encoded) whole.push('content-encoding', encoded.encoding);
  else if (ownEncoding !== undefined) whole.push('content-encoding', ownEncoding);
  whole.push('content-length', String(encoded ? encoded.size : file.size));
  const encoding = encoded?.encoding ?? null;
  return {
    status,
    lastModified: opts.lastModified,
    cacheControl: opts.cacheControl,
    siteHeaders,
    encoded,
    etag,
    notModified,
    content,
    whole,
    body: { encoding, range: null, memoryKey: source.memoryKey(file, encoding) },
  };
}
