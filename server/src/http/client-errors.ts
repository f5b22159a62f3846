/**
 * Answers to requests Node's HTTP parser refuses before any route or hook sees them: a malformed
 * request line or header, a URL or headers over the size limit, a request that timed out. Fastify's
 * default says so in English and outside the API's envelope; these answers are in Chinese: the
 * envelope, or at a site address (the sites port, a site's path or host) the platform's small page,
 * as every other error there (http/errors.ts). The URL of such a request may be unreadable, so
 * every one carries what a site response must (nosniff, and a sandbox that makes an error page
 * under /sites harmless), whatever its path.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { messages } from '@sitehall/contracts';
import { sitePlatformPage } from '../serve/index.js';

/**
 * What Node's parser may read of a request's head: 1 MiB, because cookies ignore ports and a site
 * may set them on a parent domain, so a live site that fills the browser's cookie jar (180 cookies
 * of 4 KB, about 740 KB in one Cookie header) has them sent to the app too (docs/decisions/serving.md
 * "Site cookies never lock the app"). The app reads no cookie; it only must not refuse them.
 */
export const MAX_HEAD_BYTES = 1024 * 1024;
/** The request line and every header but Cookie: Node's own default limit, as before. */
export const MAX_HEAD_BYTES_WITHOUT_COOKIES = 16 * 1024;

/**
 * Node's http server's maxHeadersCount (2,000, its default, which the app keeps), as Node applies
 * it: to the entries of rawHeaders (a name and a value each), in runs of 32 headers.
 */
const RAW_HEADER_ENTRIES_KEPT = 2000;

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
};

/**
 * A refusal's Content-Type and body: the API's envelope, or at a site address the platform's page
 * (no link back to the showcase: nothing of a refused request is read, its Host included).
 */
function refusal(status: number, message: string, atSite: boolean): { type: string; body: string } {
  if (atSite) return { type: 'text/html; charset=utf-8', body: sitePlatformPage(status, message).body };
  return { type: 'application/json; charset=utf-8', body: JSON.stringify({ success: false, message }) };
}

/** A whole refusal as written straight to a socket the HTTP server no longer answers on: it closes. */
function rawAnswer(status: number, message: string, atSite: boolean, extraHeaders = ''): string {
  const { type, body } = refusal(status, message, atSite);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: ${type}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    extraHeaders +
    'Cache-Control: no-store\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    'Content-Security-Policy: sandbox\r\n' +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Answers 431 (and returns true) when the request's head is over 16 KB without its cookies: only
 * the Cookie header may use the room MAX_HEAD_BYTES leaves. Counted as Node counts it, near
 * enough: the URL, and each header's name and value with their separators. `atSite` says whether
 * the request came to a site address (then the answer is the platform's page).
 */
export function refuseLargeHead(
  req: IncomingMessage,
  res: ServerResponse,
  atSite: (req: IncomingMessage) => boolean = () => false,
): boolean {
  let size = (req.url?.length ?? 0) + 16;
  // Node keeps about the first 2,000 entries of rawHeaders (names and values: some 1,000 headers)
  // and drops the rest unseen: a head that reaches that may hold any size past it (a 900 KB header
  // after 1,999 small ones was let through), and no browser sends a thousand headers.
  if (req.rawHeaders.length >= RAW_HEADER_ENTRIES_KEPT) size = Number.POSITIVE_INFINITY;
  if (size <= MAX_HEAD_BYTES_WITHOUT_COOKIES) {
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      if (name.length === 6 && name.toLowerCase() === 'cookie') continue;
      size += name.length + (raw[i + 1] as string).length + 4;
    }
    if (size <= MAX_HEAD_BYTES_WITHOUT_COOKIES) return false;
  }
  refuseAndClose(res, 431, messages.common.headersTooLarge, atSite(req));
  return true;
}

/** Answers a refusal in the envelope (or the platform's page at a site address), then closes. */
function refuseAndClose(res: ServerResponse, status: number, message: string, atSite: boolean): void {
  const { type, body } = refusal(status, message, atSite);
  res.shouldKeepAlive = false;
  res.writeHead(status, {
    'content-type': type,
    ...HEADERS,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * Answers 400 (and returns true) to an HTTP/1.1 request without a Host header, and to any request
 * with more than one Host line, as RFC 9112 requires: Node's own refusal of the first
 * (requireHostHeader, switched off for this in app.ts) was a 400 with no body, and of the second
 * there was none: Node kept the first Host, so the sites port served the site the first named
 * while a proxy or cache in front may go by the last (docs/decisions/serving.md "Site paths").
 * HTTP/1.0 may leave Host out.
 */
export function refuseHostless(
  req: IncomingMessage,
  res: ServerResponse,
  atSite: (req: IncomingMessage) => boolean = () => false,
): boolean {
  if (req.headers.host === undefined) {
    if (req.httpVersionMajor !== 1 || req.httpVersionMinor < 1) return false;
    refuseAndClose(res, 400, messages.common.hostMissing, atSite(req));
    return true;
  }
  if (!hostRepeated(req.rawHeaders)) return false;
  refuseAndClose(res, 400, messages.common.hostRepeated, atSite(req));
  return true;
}

/** Whether the head holds Host more than once (Node keeps only the first in `headers`). */
function hostRepeated(raw: string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/**
 * The servers' 'checkExpectation' listener: an `Expect` other than 100-continue (the only one HTTP
 * defines) is 417, in Chinese; without a listener Node answered 417 with no body.
 */
export function refuseExpectation(res: ServerResponse, atSite = false): void {
  refuseAndClose(res, 417, messages.common.expectationFailed, atSite);
}

function answerFor(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: messages.common.timeout };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: messages.common.headersTooLarge };
  return { status: 400, message: messages.common.badRequest };
}

/**
 * The server's 'connect' listener: a CONNECT request (a proxy's tunnel, which no port of SiteHall
 * is). Without a listener Node closed the connection unanswered; this answers 405 in the envelope
 * (the platform's page on the sites port) and closes it. The socket left the HTTP parser, and its
 * error listener with it: one of its own keeps a client's reset from reaching the process.
 */
export function answerConnect(socket: Duplex, atSite = false): void {
  socket.on('error', () => undefined);
  if (socket.writable)
    socket.end(
      rawAnswer(
        405,
        messages.common.methodNotAllowed,
        atSite,
        'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n',
      ),
    );
  else socket.destroy();
}

/**
 * Answers 408 and closes the connection, as Node does for a request past its timeout: for a body
 * the app itself gave up on (http/request-bodies.ts, a deploy's idle file body).
 */
export function answerRequestTimeout(socket: Duplex): void {
  answerClientError(
    Object.assign(new Error('request body timed out'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    socket,
  );
}

/**
 * Fastify's clientErrorHandler (and the sites port's, `atSite`): writes the answer and closes the
 * connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, atSite = false): void {
  // The client is gone: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, message } = answerFor(error.code);
    socket.write(rawAnswer(status, message, atSite));
  }
  socket.destroy(error);
}
