/**
 * Writes a site answer (serve/site-answer.ts) on a Fastify reply: the route's writer. What the
 * answer is — status, headers, body — is decided there; here it is only set on the reply and the
 * body opened. The security headers that every site response carries, whatever answers it
 * (errors too), are set again by registerSiteSecurityHeaders.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SiteFile } from './resolve.js';
import {
  type SiteAnswer,
  type SiteAnswerOptions,
  type SitePlatformPage,
  siteFileAnswer,
  siteRedirectAnswer,
} from './site-answer.js';
import type { SiteFileSource } from './site-file-source.js';

export interface SendSiteFileOptions extends SiteAnswerOptions {
  source: SiteFileSource;
}

/**
 * The body an async handler returns for a site response (undefined: none). Handlers return it
 * rather than call reply.send: Fastify sends a returned payload at once, while a reply handed back
 * (or sent from inside the promise) makes it wait on the response stream, which costs more than
 * the rest of a small file's answer.
 */
export type SiteBody = Buffer | Readable | string | undefined;

/**
 * Answers a GET or HEAD (the caller refuses other methods) of `file` and returns its body. The
 * body is opened before any header is set, so a missing blob (BlobNotFound) reaches the error
 * handler with a clean reply.
 */
export function sendSiteFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: SiteFile,
  opts: SendSiteFileOptions,
): SiteBody | Promise<SiteBody> {
  const headers = request.headers;
  const answer = siteFileAnswer(
    file,
    {
      method: request.method,
      range: stringHeader(headers.range),
      ifRange: stringHeader(headers['if-range']),
      acceptEncoding: stringHeader(headers['accept-encoding']),
      ifMatch: stringHeader(headers['if-match']),
      ifUnmodifiedSince: stringHeader(headers['if-unmodified-since']),
      ifNoneMatch: stringHeader(headers['if-none-match']),
      ifModifiedSince: stringHeader(headers['if-modified-since']),
    },
    opts.source,
    opts,
  );
  return answer instanceof Promise
    ? answer.then((a) => writeSiteAnswer(reply, a, file, opts.source))
    : writeSiteAnswer(reply, answer, file, opts.source);
}

/** Sets `answer`'s status and headers on the reply and returns its body: synchronous when in memory. */
export function writeSiteAnswer(
  reply: FastifyReply,
  answer: SiteAnswer,
  file: SiteFile,
  source: SiteFileSource,
): SiteBody | Promise<SiteBody> {
  const body = answer.body;
  if (body === null) {
    setHead(reply, answer);
    // HEAD of a file: an empty stream, not nothing: Fastify's automatic HEAD route would turn
    // "nothing" into Content-Length: 0.
    return answer.status === 200 || answer.status === 404 ? Readable.from([]) : undefined;
  }
  if (body.range === null) {
    const inMemory = body.memoryKey === null ? undefined : source.fromMemoryKey(body.memoryKey);
    if (inMemory) {
      setHead(reply, answer);
      return inMemory;
    }
  }
  return source.open(file, body.encoding, body.range ?? undefined).then((opened) => {
    setHead(reply, answer);
    return opened;
  });
}

function setHead(reply: FastifyReply, answer: SiteAnswer): void {
  reply.code(answer.status);
  const h = answer.headers;
  for (let i = 0; i < h.length; i += 2) reply.header(h[i]!, h[i + 1]);
}

/** A folder's missing slash ('./docs/'), a site's own redirect rule, or a move to the sites host. */
export function sendSiteRedirect(
  reply: FastifyReply,
  location: string,
  status?: SiteAnswer['status'],
): SiteBody {
  setHead(reply, siteRedirectAnswer(location, status));
  return undefined;
}

/**
 * The platform's own page (serve/site-answer.ts sitePlatformPage) on a reply: a 404 of the route,
 * or an error answer at a site address (http/errors.ts).
 */
export function sendSitePage(reply: FastifyReply, page: SitePlatformPage): string {
  reply.code(page.status);
  const h = page.headers;
  for (let i = 0; i < h.length; i += 2) reply.header(h[i]!, h[i + 1]);
  return page.body;
}

function stringHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
