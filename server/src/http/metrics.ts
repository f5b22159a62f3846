/**
 * Where Prometheus reads the metrics (docs/decisions/operations.md "Metrics are not public"): GET /metrics on
 * the main port answers only a scraper that sends `Authorization: Bearer $METRICS_TOKEN` (404 when
 * no token is configured, so the path looks like any unknown one), and METRICS_PORT serves the same
 * text on a listener of its own, bound to loopback unless METRICS_HOST says otherwise.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Checks an Authorization header against the token in constant time. */
function tokenMatcher(token: string | undefined): (authorization: string | undefined) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

const UNAUTHORIZED = { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' };

/** Times every request (when the metrics are exposed) and answers GET /metrics on the main port. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, config: Config['metrics']): void {
  if (metrics.exposed) {
    app.addHook('onResponse', async (request, reply) => {
      metrics.observeRequest(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime);
    });
  }
  const allowed = tokenMatcher(config.token);
  app.get('/metrics', async (request, reply) => {
    if (config.token === undefined)
      return reply.code(404).type('text/plain; charset=utf-8').send('404 未找到');
    if (!allowed(request.headers.authorization)) return reply.code(401).headers(UNAUTHORIZED).send('401');
    const { contentType, body } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** The metrics on a port of their own (METRICS_PORT): GET /metrics and nothing else. */
export async function serveMetrics(
  metrics: Metrics,
  config: Config['metrics'] & { port: number },
): Promise<MetricsServer> {
  const allowed = tokenMatcher(config.token);
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404');
      return;
    }
    if (!allowed(req.headers.authorization)) {
      res.writeHead(401, UNAUTHORIZED).end('401');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('500'),
    );
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
