/**
 * The connection fast path: a keep-alive connection asking for hot /sites files is answered from
 * its bytes, without Node's HTTP machinery (docs/decisions/serving.md, "Hot files skip Node's HTTP server
 * too"). Node's server spends more on a small file's request (an IncomingMessage, a
 * ServerResponse, their streams, header validation) than everything else it takes; here a request
 * costs one strict read of its head (serve/request-head.ts), the fast path's lookup, and one write
 * of a head prepared once per file. Its bytes are read into one buffer shared by every such
 * connection, with no Buffer made and no 'data' event emitted per read (docs/decisions/serving.md,
 * "One read buffer").
 *
 * Each new connection starts here. While its requests are plain GETs the fast path answers, they
 * are answered here, in order, as Node would (the same bytes: server/test/fast-connections.test.ts
 * compares them). At the first request that is anything else — another method, a body, a Range, a
 * file not in memory, an API call, a head split across packets, bytes this module does not read —
 * the connection is handed to Node's HTTP server with that request's bytes put back in front, and
 * stays there. So everything but the hottest path keeps Node's parser, limits and timeouts.
 */
import http from 'node:http';
import net, { type Socket } from 'node:net';
import type { SiteFastPath } from './fast-path.js';
import { readRequestHead } from './request-head.js';
import type { PreparedAnswer } from './site-answer.js';

/**
 * Heads longer than this go to Node: 8 KB is far above what a browser sends to a static site, and
 * half Node's limit leaves room however Node counts, so a head read here is never one Node would
 * refuse with 431 (also with --max-http-header-size or the server's maxHeaderSize set lower).
 */
function maxHeadBytes(server: http.Server): number {
  // Node keeps the option on the server (untyped); unset, the process-wide default applies.
  const limit = (server as { maxHeaderSize?: number }).maxHeaderSize || http.maxHeaderSize;
  return Math.min(8 * 1024, Math.floor(limit / 2));
}

type ConnectionListener = (this: http.Server, socket: Socket) => void;

/**
 * The two fields through which a net.Socket reads into a buffer of its owner's and calls back
 * with the count, instead of making a Buffer and emitting 'data' for each read (net.connect's
 * `onread` option, Node's `kBuffer` and `kBufferCb`). Node's server gives the sockets it accepts
 * no such option, so the fast path sets the fields itself and tells the handle, as net.Socket's
 * constructor does for the option. Found by their symbols' descriptions on a socket of this Node;
 * null when it has no such fields.
 */
const readFields = (() => {
  const symbols = Object.getOwnPropertySymbols(new net.Socket());
  const buffer = symbols.find((s) => s.description === 'kBuffer');
  const callback = symbols.find((s) => s.description === 'kBufferCb');
  return buffer && callback ? { buffer, callback } : null;
})();

/**
 * Every fast-path connection of the process reads into this one buffer: a read's bytes are used
 * (or copied) before its callback returns, and the callbacks run one at a time on this thread.
 * 64 KB is what Node allocates for each read of a socket otherwise.
 */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

type ReadCallback = (length: number, buffer: Buffer) => boolean | undefined;
type ReadingSocket = Socket & { _handle: { useUserBuffer?: (buffer: Uint8Array) => void } | null };

/** Whether `socket`'s handle can read into a buffer of ours (a TCP or pipe handle can). */
function canReadIntoSharedBuffer(socket: Socket): boolean {
  return readFields !== null && typeof (socket as ReadingSocket)._handle?.useUserBuffer === 'function';
}

/** Makes `socket` read into READ_BUFFER and call `onRead` (canReadIntoSharedBuffer said it can). */
function readIntoSharedBuffer(socket: Socket, onRead: ReadCallback): void {
  if (!readFields) return;
  const fields = socket as unknown as Record<symbol, unknown>;
  fields[readFields.buffer] = READ_BUFFER;
  fields[readFields.callback] = onRead;
  (socket as ReadingSocket)._handle?.useUserBuffer?.(READ_BUFFER);
}

/** Node's own handler of a new connection on `server`, which this module stands in front of. */
function nodeConnectionListener(server: http.Server): ConnectionListener | undefined {
  return server.listeners('connection').find((l) => l.name === 'connectionListener') as
    | ConnectionListener
    | undefined;
}

/**
 * What of Node's internals this module needs and `server` lacks, in a sentence, or null when all
 * is there: Node's own 'connection' listener (named connectionListener in Node's _http_server.js,
 * not a public API) to take a connection over from, and closeIdleConnections/closeAllConnections
 * to extend. Checked at start (serve/site-server.ts), so a Node that changed them is said, not
 * silently served slower.
 */
export function missingConnectionInternals(server: http.Server): string | null {
  if (!nodeConnectionListener(server))
    return "Node's HTTP server has no 'connection' listener named connectionListener";
  if (!readFields) return "Node's net.Socket has no kBuffer/kBufferCb fields (its onread option)";
  if (typeof server.closeIdleConnections !== 'function' || typeof server.closeAllConnections !== 'function')
    return "Node's HTTP server has no closeIdleConnections/closeAllConnections";
  return null;
}

/**
 * Puts the connection fast path in front of `server`'s own connection handling and returns true,
 * or returns false when Node's internals it needs are missing (missingConnectionInternals says
 * which). `fastPath` is asked for each new connection (none, or stopped: Node's server takes it).
 */
export function serveFastConnections(server: http.Server, fastPath: () => SiteFastPath | null): boolean {
  const nodeListener = nodeConnectionListener(server);
  if (!nodeListener || missingConnectionInternals(server) !== null) return false;
  server.removeListener('connection', nodeListener);
  /** Open connections still answered here, and how to close each. */
  const open = new Map<Socket, (force: boolean) => void>();

  server.on('connection', (socket: Socket) => {
    const path = fastPath();
    // Node's per-socket request cap is Node's to count.
    if (!path || server.maxRequestsPerSocket || !canReadIntoSharedBuffer(socket))
      nodeListener.call(server, socket);
    else serveConnection(server, socket, path, open, nodeListener);
  });

  // Node closes its idle connections when the server closes (and all of them when Fastify forces
  // it); these are idle between requests too, as each is answered as it arrives.
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const close of [...open.values()]) close(false);
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const close of [...open.values()]) close(true);
  };
  return true;
}

function serveConnection(
  server: http.Server,
  socket: Socket,
  path: SiteFastPath,
  open: Map<Socket, (force: boolean) => void>,
  nodeListener: ConnectionListener,
): void {
  let keepAliveSet = false;
  const maxHead = maxHeadBytes(server);
  // Read once: the getter asks the socket's handle each time.
  const remoteAddress = socket.remoteAddress;
  const localPort = socket.localPort;

  /** Set once Node's server has the connection. */
  let handedOff = false;

  const onRead: ReadCallback = (length, bytes) => {
    // Node's server reads the socket itself (its parser consumes the handle), unless it has let
    // go of it (an upgrade): then each read goes where Node's own read would have put it.
    if (handedOff) return socket.push(Buffer.from(bytes.subarray(0, length)));
    const text = bytes.toString('latin1', 0, length);
    let at = 0;
    let answered = 0;
    try {
      // A client that sends requests without reading the answers (pipelining) is Node's to hold
      // back: past the socket's buffer the rest goes to Node's server, which pauses it.
      while (at < text.length && !socket.writableNeedDrain) {
        const started = path.onServed ? performance.now() : 0;
        const head = readRequestHead(text, at, maxHead);
        if (head) {
          head.remoteAddress = remoteAddress;
          head.localPort = localPort;
        }
        const answer = head && path.answer(head);
        if (!head || !answer) break;
        // One request per read is the rule (a browser waits for each answer): its answer is one
        // write. Pipelined requests' answers after the first are gathered into one.
        if (answered === 1) socket.cork();
        writeAnswer(socket, answer, server.keepAliveTimeout);
        answered++;
        path.connections.answered++;
        path.onServed?.(answer.status, performance.now() - started);
        at = head.end;
      }
    } finally {
      if (answered > 1) socket.uncork();
    }
    // The rest is copied: the buffer is the next read's.
    if (at < text.length) {
      handOff(Buffer.from(bytes.subarray(at, length)));
      return;
    }
    if (!keepAliveSet) {
      // Between requests Node waits keepAliveTimeout, as the Keep-Alive header says.
      keepAliveSet = true;
      socket.setTimeout(server.keepAliveTimeout || server.timeout);
    }
    return;
  };
  // The client has sent all it will: close once what it asked for is written.
  const onEnd = () => socket.end();
  const onTimeout = () => socket.destroy();
  const onError = () => {};
  const onClose = () => open.delete(socket);

  function detach() {
    open.delete(socket);
    handedOff = true;
    socket.removeListener('end', onEnd);
    socket.removeListener('timeout', onTimeout);
    socket.removeListener('error', onError);
    socket.removeListener('close', onClose);
    socket.setTimeout(0);
  }

  /** Node's server takes the connection from `rest`, the bytes of a request not answered here. */
  function handOff(rest: Buffer) {
    detach();
    path.connections.handedOff++;
    // Paused, the bytes put back wait in the socket's buffer, ahead of any that arrive later,
    // until Node's server has its parser in place; resuming feeds them to it.
    socket.pause();
    socket.unshift(rest);
    nodeListener.call(server, socket);
    socket.resume();
  }

  open.set(socket, (force) => {
    detach();
    socket.on('error', onError);
    if (force || socket.writableLength === 0) socket.destroy();
    else {
      // What is written still goes out, then the connection closes; a client that does not read
      // it is cut off after the server's idle timeout, as Node's server would.
      socket.end();
      socket.once('finish', () => socket.destroy());
      socket.setTimeout(server.timeout || 60_000, () => socket.destroy());
    }
  });
  // A head must arrive within headersTimeout, as Node's server requires (a silent connection is
  // closed then).
  const first = server.headersTimeout || server.timeout;
  if (first) socket.setTimeout(first);
  socket.on('end', onEnd);
  socket.on('timeout', onTimeout);
  socket.on('error', onError);
  socket.on('close', onClose);
  readIntoSharedBuffer(socket, onRead);
}

// ---- Writing an answer as Node's ServerResponse would -------------------------------------------

/** The status line and headers of each prepared header list, as bytes (built once per list). */
const heads = new WeakMap<readonly string[], Buffer>();

/** The status line and headers, as Node's ServerResponse writes them. */
function headOf(answer: PreparedAnswer): Buffer {
  let head = heads.get(answer.headers);
  if (!head) {
    let text = `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}\r\n`;
    const h = answer.headers;
    for (let i = 0; i < h.length; i += 2) text += `${h[i]}: ${h[i + 1]}\r\n`;
    // Prepared headers are ASCII (types, tags, dates, encoded file names): latin1 is what Node writes.
    head = Buffer.from(text, 'latin1');
    heads.set(answer.headers, head);
  }
  return head;
}

let closing: Buffer = Buffer.alloc(0);
let closingUntil = 0;
let closingKeepAlive = -1;

/** Date, Connection and Keep-Alive and the blank line, as Node adds them: remade once a second. */
function closingLines(keepAliveTimeout: number): Buffer {
  const now = Date.now();
  if (now >= closingUntil || keepAliveTimeout !== closingKeepAlive) {
    closingUntil = now - (now % 1000) + 1000;
    closingKeepAlive = keepAliveTimeout;
    const keepAlive = keepAliveTimeout
      ? `Keep-Alive: timeout=${Math.floor(keepAliveTimeout / 1000)}\r\n`
      : '';
    closing = Buffer.from(
      `Date: ${new Date(now).toUTCString()}\r\nConnection: keep-alive\r\n${keepAlive}\r\n`,
      'latin1',
    );
    // The whole answers made with the last second's Date are stale.
    whole.clear();
    wholeBytes = 0;
  }
  return closing;
}

/**
 * Small answers whole (head, Date, body in one Buffer), kept for the second their Date line is
 * good for: a hot file's answer is then one write of bytes made once a second, not three chunks
 * gathered into a writev on every request. Keyed by the prepared header list, checked against
 * the body (the cache may have reloaded it) and the Date line; bounded in bytes.
 */
interface WholeAnswer {
  body: Buffer | null;
  closing: Buffer;
  bytes: Buffer;
}
const whole = new Map<readonly string[], WholeAnswer>();
let wholeBytes = 0;
/** Bodies up to this size are sent whole; larger ones are written as they are kept. */
const WHOLE_BODY_MAX = 64 * 1024;
/** What whole answers may hold at once (at most a second's worth of distinct hot answers). */
const WHOLE_MAX_BYTES = 8 * 1024 * 1024;

function wholeAnswer(answer: PreparedAnswer, closing: Buffer): Buffer | null {
  const body = answer.body;
  if (body && body.length > WHOLE_BODY_MAX) return null;
  const kept = whole.get(answer.headers);
  if (kept && kept.body === body && kept.closing === closing) return kept.bytes;
  const head = headOf(answer);
  const size = head.length + closing.length + (body ? body.length : 0);
  if (wholeBytes + size > WHOLE_MAX_BYTES) return null;
  const bytes = Buffer.allocUnsafeSlow(size);
  head.copy(bytes, 0);
  closing.copy(bytes, head.length);
  if (body) body.copy(bytes, head.length + closing.length);
  if (kept) wholeBytes -= kept.bytes.length;
  whole.set(answer.headers, { body, closing, bytes });
  wholeBytes += size;
  return bytes;
}

function writeAnswer(socket: Socket, answer: PreparedAnswer, keepAliveTimeout: number): void {
  const closing = closingLines(keepAliveTimeout);
  const bytes = wholeAnswer(answer, closing);
  if (bytes) {
    socket.write(bytes);
    return;
  }
  socket.cork();
  socket.write(headOf(answer));
  socket.write(closing);
  if (answer.body) socket.write(answer.body);
  socket.uncork();
}
