/**
 * What an upload's answer depends on besides its body (docs/decisions/review.md "An answer is never
 * lost"): the client's `Idempotency-Key`, and a signal that aborts when the client is gone before
 * the answer was sent (its connection closed: by the client, or by the server's idle timeout).
 */
import { messages } from '@sitehall/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Invalid } from '../domain/errors.js';
import type { UploadDelivery } from '../services/uploads.js';

const KEY = /^[A-Za-z0-9._:-]{1,200}$/;

export function uploadDelivery(request: FastifyRequest, reply: FastifyReply): UploadDelivery {
  const header = request.headers['idempotency-key'];
  if (header !== undefined && (typeof header !== 'string' || !KEY.test(header)))
    throw new Invalid('Idempotency-Key', messages.project.idempotencyKeyInvalid);
  const gone = new AbortController();
  const abandon = () => {
    if (!reply.raw.writableFinished) gone.abort(new Error('the client closed the connection'));
  };
  // A client that ends its side (no HTTP client half-closes while awaiting an answer) or whose
  // connection closed (by it, or by the server's idle timeout) can't receive the answer. The
  // response's own 'close' is not enough: Node holds a half-closed socket until the answer.
  const socket = request.raw.socket;
  if (!socket || socket.destroyed || socket.readableEnded) abandon();
  else {
    socket.once('end', abandon);
    socket.once('close', abandon);
    reply.raw.once('finish', () => {
      socket.off('end', abandon);
      socket.off('close', abandon);
    });
  }
  // What the key came with: a retry sends the same method to the same path.
  const requestLine = `${request.method} ${request.url.split('?')[0]}`;
  return { ...(header ? { key: header, request: requestLine } : {}), signal: gone.signal };
}
