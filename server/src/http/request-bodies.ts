/**
 * Request bodies may not hold a connection open for the 10-minute request timeout unless they are
 * uploads (docs/security.md, "Operations"):
 *
 * - a body that is not an upload stream (JSON and forms, at most 1 MB) must arrive whole within
 *   `deadlineMs` of its head, or the request is answered 408 and its connection closed, as Node
 *   answers a request past its own timeout. Upload streams (multipart, octet-stream, and a deploy's
 *   raw PUT whatever its type) may take the request timeout;
 * - an answer sent before its request's body has arrived (a 401 to an anonymous upload, a 415, any
 *   refusal) closes the connection, instead of reading the rest of the body to keep it alive.
 *
 * A client trickling a body a byte at a time held a connection for 10 minutes on any endpoint,
 * login included; 20,000 such connections left the server answering no one.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { answerRequestTimeout } from './client-errors.js';

/** Content types whose bodies are streams a route reads with an idle watch of its own. */
const UPLOAD_STREAM = /^\s*(multipart\/|application\/octet-stream)/i;

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function registerBodyDeadlines(app: FastifyInstance, deadlineMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const req = request.raw;
    // Only requests on a connection of their own (not app.inject's, which has no socket to close).
    if (
      !onConnection(req) ||
      !hasBody(req) ||
      // A route whose body is the file itself (a deploy's PUT), whatever type it is sent as.
      request.routeOptions.config?.bodyKind === 'raw' ||
      UPLOAD_STREAM.test(req.headers['content-type'] ?? '')
    )
      return done();
    let received = false;
    const timer = setTimeout(() => {
      const { socket } = req;
      if (received || socket.destroyed || reply.raw.headersSent) return;
      request.log.info('request body not in within its deadline: 408, connection closed');
      answerRequestTimeout(socket);
    }, deadlineMs);
    const stop = () => clearTimeout(timer);
    req.once('end', () => {
      received = true;
      stop();
    });
    req.once('close', stop);
    // Once an answer has been sent, the deadline is the onSend hook's business below.
    reply.raw.once('finish', stop);
    reply.raw.once('close', stop);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const req = request.raw;
    if (onConnection(req) && hasBody(req) && !req.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** A request read from a socket (app.inject's requests have a stand-in without one). */
function onConnection(req: IncomingMessage): boolean {
  return typeof (req.socket as { destroy?: unknown } | undefined)?.destroy === 'function';
}
