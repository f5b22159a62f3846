/**
 * Request bodies may not hold a connection open for the 10-minute request timeout unless they are
 * uploads (docs/security.md, "Operations"):
 *
 * - a body that is not an upload stream (JSON and forms, at most 1 MB) must arrive whole within
 *   `deadlineMs` of its head, or the request is answered 408 and its connection closed, as Node
 *   answers a request past its own timeout. Upload streams (multipart, octet-stream) are watched for
 *   idleness by their routes instead, and may take the request timeout;
 * - an answer sent before its request's body has arrived (a 401 to an anonymous upload, a 415, any
 *   refusal) closes the connection, instead of reading the rest of the body to keep it alive.
 *
 * A client trickling a body a byte at a time held a connection for 10 minutes on any endpoint,
 * login included; 20,000 such connections left the server answering no one.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { answerClientError } from './client-errors.js';

/** Content types whose bodies are streams a route reads with an idle watch of its own. */
const UPLOAD_STREAM = /^\s*(multipart\/|application\/octet-stream)/i;

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function registerBodyDeadlines(app: FastifyInstance, deadlineMs: number): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const req = request.raw;
    if (!hasBody(req) || UPLOAD_STREAM.test(req.headers['content-type'] ?? '')) return done();
    const timer = setTimeout(() => {
      const socket = req.socket;
      if (req.complete || socket.destroyed) return;
      request.log.info('request body not in within its deadline: 408, connection closed');
      answerClientError(
        Object.assign(new Error('request body too slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        socket,
      );
    }, deadlineMs);
    const stop = () => clearTimeout(timer);
    req.once('end', stop);
    req.once('close', stop);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasBody(request.raw) && !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}
