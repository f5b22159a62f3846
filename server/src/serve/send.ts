/**
 * Sends one stored site file as an HTTP response: type, validators and caching, conditional
 * requests, a single byte range, compression negotiation, HEAD. The security headers that every
 * site response carries come from registerSiteSecurityHeaders, not from here.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  attachmentDisposition,
  contentTypeHeader,
  isCompressible,
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
} from './http-conditions.js';
import type { SiteFile } from './resolve.js';
import type { EncodedBody, SiteFileSource } from './site-file-source.js';

export interface SendSiteFileOptions {
  source: SiteFileSource;
  /** 404 when sending the site's own 404.html: no validators, no ranges, no 304. */
  status?: 200 | 404;
  /** When the deployment went live; sent as Last-Modified and honoured in If-Modified-Since. */
  lastModified?: Date;
  /**
   * Replaces the default Cache-Control ('no-cache' for HTML so a new deployment shows at once,
   * 'public, max-age=300' for assets); previews pass 'private, no-store'.
   */
  cacheControl?: string;
}

const ASSET_CACHE = 'public, max-age=300';
const HTML_CACHE = 'no-cache';

/**
 * The body an async handler returns for a site response (undefined: none). Handlers return it
 * rather than call reply.send: Fastify sends a returned payload at once, while a reply handed back
 * (or sent from inside the promise) makes it wait on the response stream, which costs more than
 * the rest of a small file's answer.
 */
export type SiteBody = Buffer | Readable | string | undefined;

/**
 * Prepares the answer to a GET or HEAD (the caller refuses other methods) and returns its body.
 * The body is opened before any header is set, so a missing blob (BlobNotFound) reaches the error
 * handler with a clean reply.
 */
export function sendSiteFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: SiteFile,
  opts: SendSiteFileOptions,
): SiteBody | Promise<SiteBody> {
  const { source } = opts;
  const status = opts.status ?? 200;
  const headers = request.headers;
  const facts = factsOf(file);
  const compressible = facts.compressible && file.size >= source.minCompressBytes;

  const common: Record<string, string> = {
    'cache-control': opts.cacheControl ?? (facts.html ? HTML_CACHE : ASSET_CACHE),
  };
  if (opts.lastModified) common['last-modified'] = httpDate(opts.lastModified);
  if (compressible) common.vary = 'Accept-Encoding';

  // Range applies to GET of the plain bytes only; a stale If-Range or several ranges mean "send it all".
  let range: ByteRangeRequest | 'unsatisfiable' | null = null;
  const rangeHeader = headers.range;
  if (status === 200 && request.method === 'GET' && typeof rangeHeader === 'string') {
    const ifRange = typeof headers['if-range'] === 'string' ? headers['if-range'] : undefined;
    if (ifRangeAllows(ifRange, facts.etag, opts.lastModified)) range = parseRange(rangeHeader, file.size);
  }

  if (compressible && range === null) {
    const accepted = acceptedEncodings(stringHeader(headers['accept-encoding']));
    if (accepted.length > 0) {
      // Known variants answer at once; one still to be looked up or made costs a wait.
      const known = source.knownEncoding(file, accepted);
      if (known === undefined) {
        return source
          .pickEncoding(file, accepted)
          .then((encoded) => answer(request, reply, file, opts, common, range, encoded));
      }
      return answer(request, reply, file, opts, common, range, known);
    }
  }
  return answer(request, reply, file, opts, common, range, null);
}

/** The rest of sendSiteFile once the encoding is chosen: synchronous when the body is in memory. */
function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  file: SiteFile,
  opts: SendSiteFileOptions,
  common: Record<string, string>,
  range: ByteRangeRequest | 'unsatisfiable' | null,
  encoded: EncodedBody | null,
): SiteBody | Promise<SiteBody> {
  const { source } = opts;
  const status = opts.status ?? 200;
  const facts = factsOf(file);
  const headers = request.headers;

  if (status === 200) {
    const etag = encoded ? etagFor(file.sha256, encoded.encoding) : facts.etag;
    common.etag = etag;
    const conditions = {
      'if-none-match': stringHeader(headers['if-none-match']),
      'if-modified-since': stringHeader(headers['if-modified-since']),
    };
    if (isNotModified(conditions, etag, opts.lastModified)) {
      reply.code(304).headers(common);
      return undefined;
    }
  }

  const content: Record<string, string> = { 'content-type': facts.contentType };
  if (facts.disposition) content['content-disposition'] = facts.disposition;
  if (status === 200) content['accept-ranges'] = 'bytes';

  if (range === 'unsatisfiable') {
    reply
      .code(416)
      .headers(common)
      .headers({ 'content-range': `bytes */${file.size}` });
    return undefined;
  }

  if (range) {
    const partial = {
      'content-range': `bytes ${range.start}-${range.end}/${file.size}`,
      'content-length': String(range.end - range.start + 1),
    };
    // The body is opened before any header is set: a missing blob (BlobNotFound) reaches the error
    // handler with a clean reply.
    return source.open(file, null, range).then((body) => {
      reply.code(206).headers(common).headers(content).headers(partial);
      return body;
    });
  }

  const encoding = encoded?.encoding ?? null;
  if (encoded) content['content-encoding'] = encoded.encoding;
  content['content-length'] = String(encoded ? encoded.size : file.size);
  // HEAD: the same headers as GET and no blob opened. The body is an empty stream, not nothing:
  // Fastify's automatic HEAD route would turn "nothing" into Content-Length: 0.
  const inMemory = request.method === 'HEAD' ? Readable.from([]) : source.fromMemory(file, encoding);
  if (inMemory) {
    reply.code(status).headers(common).headers(content);
    return inMemory;
  }
  return source.open(file, encoding).then((body) => {
    reply.code(status).headers(common).headers(content);
    return body;
  });
}

interface FileFacts {
  contentType: string;
  disposition: string | undefined;
  compressible: boolean;
  html: boolean;
  etag: string;
  /** preparedAnswer's memory of this file. */
  hot?: HotFile;
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
      etag: etagFor(file.sha256),
    };
    facts.set(file, f);
  }
  return f;
}

let lastDate: Date | undefined;
let lastDateText = '';
/** Date → HTTP date; the same deployment's date asked again and again is formatted once. */
function httpDate(date: Date): string {
  if (date !== lastDate) {
    lastDate = date;
    lastDateText = date.toUTCString();
  }
  return lastDateText;
}

/** The directory redirect of resolveSiteFile ('./docs/'), not cached for long: deployments change. */
export function sendSiteRedirect(reply: FastifyReply, location: string): SiteBody {
  reply.code(302).headers({ location, 'cache-control': HTML_CACHE });
  return undefined;
}

function stringHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A whole answer known at once: status, headers as a flat [name, value, ...] list, body. */
export interface PreparedAnswer {
  status: 200 | 304;
  headers: string[];
  body: Buffer | null;
}

/** A file's prepared answer in one encoding: the 200's and the 304's headers, site headers included. */
interface Prepared {
  /** What they were built for (identities: deployment date, header set, negotiated variant). */
  lastModified: Date;
  siteHeaders: Readonly<Record<string, string>>;
  encoded: EncodedBody | null;
  ok: string[];
  notModified: string[];
  etag: string;
  /** Where the body is in the source's memory; null when it is too large to be kept there. */
  memoryKey: string | null;
}

/**
 * What preparedAnswer remembers of a file between requests: the variant chosen for the last
 * Accept-Encoding list seen, and the answers built for the plain bytes and that variant.
 * Browsers send the same requests again and again, so a hot file's answer is a few identity
 * comparisons away: no string is built and no map is keyed by one per request.
 */
interface HotFile {
  accepted: readonly ContentEncoding[] | null;
  encoded: EncodedBody | null;
  plain: Prepared | null;
  variant: Prepared | null;
}

let lastAccept: string | undefined;
let lastAccepted: readonly ContentEncoding[] = [];

/**
 * The answer to a plain GET of a live site's file (no Range, no preview) when everything it needs
 * is in memory: the body (plain or a compressed variant already known), and the headers, built
 * once per file and encoding. The same headers, in the same cases, as sendSiteFile plus
 * registerSiteSecurityHeaders (server/test/site-fast-path.test.ts compares them); null when
 * sendSiteFile must answer (a variant to look up or make, a body to read).
 */
export function preparedAnswer(
  file: SiteFile,
  source: SiteFileSource,
  request: { 'accept-encoding'?: string; 'if-none-match'?: string; 'if-modified-since'?: string },
  lastModified: Date,
  siteHeaders: Readonly<Record<string, string>>,
): PreparedAnswer | null {
  const facts = factsOf(file);
  let hot = facts.hot;
  if (!hot) {
    hot = { accepted: null, encoded: null, plain: null, variant: null };
    facts.hot = hot;
  }
  const compressible = facts.compressible && file.size >= source.minCompressBytes;
  let encoded: EncodedBody | null = null;
  if (compressible) {
    const accept = request['accept-encoding'];
    // Browsers send the same Accept-Encoding every time: parsed once.
    if (accept !== lastAccept) {
      lastAccepted = acceptedEncodings(accept);
      lastAccept = accept;
    }
    if (lastAccepted.length > 0) {
      if (hot.accepted !== lastAccepted) {
        const known = source.knownEncoding(file, lastAccepted);
        if (known === undefined) return null;
        // A variant's size never changes once known (blobs are immutable): safe to keep.
        hot.accepted = lastAccepted;
        hot.encoded = known;
      }
      encoded = hot.encoded;
    }
  }
  let p = encoded ? hot.variant : hot.plain;
  if (!p || p.encoded !== encoded || p.lastModified !== lastModified || p.siteHeaders !== siteHeaders) {
    p = prepare(file, facts, compressible, lastModified, siteHeaders, encoded, source);
    if (encoded) hot.variant = p;
    else hot.plain = p;
  }
  const noneMatch = request['if-none-match'];
  const since = request['if-modified-since'];
  if (
    (noneMatch !== undefined || since !== undefined) &&
    isNotModified({ 'if-none-match': noneMatch, 'if-modified-since': since }, p.etag, lastModified)
  ) {
    return { status: 304, headers: p.notModified, body: null };
  }
  if (p.memoryKey === null) return null;
  const body = source.fromMemoryKey(p.memoryKey);
  return body ? { status: 200, headers: p.ok, body } : null;
}

function prepare(
  file: SiteFile,
  facts: FileFacts,
  compressible: boolean,
  lastModified: Date,
  siteHeaders: Readonly<Record<string, string>>,
  encoded: EncodedBody | null,
  source: SiteFileSource,
): Prepared {
  const etag = encoded ? etagFor(file.sha256, encoded.encoding) : facts.etag;
  // The order sendSiteFile sets them in, the site headers first (they are set last there, but
  // over names of their own).
  const common: string[] = [
    ...Object.entries(siteHeaders).flat(),
    'cache-control',
    facts.html ? HTML_CACHE : ASSET_CACHE,
    'last-modified',
    httpDate(lastModified),
    ...(compressible ? ['vary', 'Accept-Encoding'] : []),
    'etag',
    etag,
  ];
  const ok = [
    ...common,
    'content-type',
    facts.contentType,
    ...(facts.disposition ? ['content-disposition', facts.disposition] : []),
    'accept-ranges',
    'bytes',
    ...(encoded ? ['content-encoding', encoded.encoding] : []),
    'content-length',
    String(encoded ? encoded.size : file.size),
  ];
  return {
    lastModified,
    siteHeaders,
    encoded,
    ok,
    notModified: common,
    etag,
    memoryKey: source.memoryKey(file, encoded?.encoding ?? null),
  };
}
