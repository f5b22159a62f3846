/**
 * A test's HTTP proxy in front of a test server: a request forwarded as it came (method, path,
 * headers), and the answer returned as it is. A failed upstream ends the client's request.
 */
import http from 'node:http';

/** Forwards `req` to `target`, with `body` when the caller read it, else streamed as it arrives. */
export function forwardRequest(
  target: URL,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body?: Buffer,
): void {
  const upstream = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  if (body) upstream.end(body);
  else req.pipe(upstream);
}
