/**
 * Answers to requests Node's HTTP parser refuses before any route or hook sees them: a malformed
 * request line or header, a URL or headers over the size limit, a request that timed out. Fastify's
 * default says so in English and outside the API's envelope; these answers are the envelope in
 * Chinese. The URL of such a request may be unreadable, so every one carries what a site response
 * must (nosniff, and a sandbox that makes an error page under /sites harmless), whatever its path.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { messages } from '@sitehall/contracts';

function answerFor(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: messages.common.timeout };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: messages.common.headersTooLarge };
  return { status: 400, message: messages.common.badRequest };
}

/** Fastify's clientErrorHandler: writes the answer and closes the connection. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // The client is gone: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, message } = answerFor(error.code);
    const body = JSON.stringify({ success: false, message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Content-Security-Policy: sandbox\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
