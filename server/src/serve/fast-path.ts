/**
 * The hot path of /sites: a plain GET of a live site's file whose body is in memory is answered
 * straight from Node's request event, before Fastify (docs/decisions.md "Serving and showcase").
 * Routing, hooks and the reply object cost a small file more than everything else it takes
 * (docs/benchmarks.md); here the lookup is a few map reads and the headers are prepared once per
 * file. Everything else — ranges, HEAD, previews, redirects, 404s, a variant or body not in memory
 * yet, a site not in the cache, the separate sites origin — falls through to the Fastify route,
 * which answers the same way (server/test/site-fast-path.test.ts compares the two).
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { idParam } from '../http/reply.js';
import type { DeploymentIndex } from '../services/site-index.js';
import { isHtml } from './content-types.js';
import { preparedAnswer } from './send.js';
import type { SiteFileSource } from './site-file-source.js';
import { decodeSitePath, splitSiteUrl } from './site-path.js';

export interface SiteFastPathDeps {
  peekLive(projectId: number): DeploymentIndex | null | undefined;
  source: SiteFileSource;
  countView(projectId: number, userAgent: string | undefined): void;
  /** The headers every /sites response carries (serve/site-headers.ts). */
  siteHeaders: Readonly<Record<string, string>>;
  /**
   * Told of each answer (status, ms since the request arrived), so the request metrics count these
   * answers too: Fastify's hooks never see them. Absent when metrics are off.
   */
  onServed?: (status: number, ms: number) => void;
}

export interface SiteFastPath {
  /** Answers the request and returns true, or returns false and leaves it untouched. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** Stops answering (the app is closing: Fastify answers 503 from now on). */
  stop(): void;
  /** Requests answered here (tests check that the path is taken). */
  readonly served: number;
}

export function createSiteFastPath(deps: SiteFastPathDeps): SiteFastPath {
  let on = true;
  let served = 0;
  return {
    get served() {
      return served;
    },
    stop() {
      on = false;
    },
    serve(req, res) {
      const started = deps.onServed ? performance.now() : 0;
      const url = req.url;
      if (!on || req.method !== 'GET' || url === undefined || !url.startsWith('/sites/')) return false;
      const headers = req.headers;
      if (headers.range !== undefined) return false;
      const parts = splitSiteUrl(url);
      if (!parts || parts.rawPath === null) return false;
      const id = idParam(parts.key);
      const site = id === null ? undefined : deps.peekLive(id);
      if (!site) return false;
      const path = decodeSitePath(parts.rawPath);
      if (path === null) return false;
      const file = site.files.get(path === '' || path.endsWith('/') ? `${path}index.html` : path);
      if (!file) return false;
      const answer = preparedAnswer(
        file,
        deps.source,
        {
          'accept-encoding': single(headers['accept-encoding']),
          'if-none-match': single(headers['if-none-match']),
          'if-modified-since': single(headers['if-modified-since']),
        },
        site.lastModified,
        deps.siteHeaders,
      );
      if (!answer) return false;
      const purpose = headers['sec-purpose'] ?? headers.purpose;
      if (isHtml(file.mime_type) && !(typeof purpose === 'string' && purpose.includes('prefetch'))) {
        deps.countView(site.projectId, headers['user-agent']);
      }
      served++;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? undefined);
      deps.onServed?.(answer.status, performance.now() - started);
      return true;
    },
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Fastify's own HTTP/1 server (same options and timeouts) with the fast path in front of it. The
 * path is looked up per request, so it can be set once the services it needs exist.
 */
export function siteServerFactory(fastPath: () => SiteFastPath | null): FastifyServerFactory {
  return (handler, fastifyOptions) => {
    // Fastify's options after its defaults; typed loosely by Fastify.
    const opts = fastifyOptions as {
      http?: http.ServerOptions;
      keepAliveTimeout?: number;
      requestTimeout?: number;
      connectionTimeout?: number;
    };
    const listener: RequestListener = (req, res) => {
      if (!fastPath()?.serve(req, res)) handler(req, res);
    };
    const server = http.createServer(opts.http ?? {}, listener);
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout !== undefined) server.setTimeout(opts.connectionTimeout);
    return server;
  };
}
