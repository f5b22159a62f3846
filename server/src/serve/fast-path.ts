/**
 * The hot path of /sites: a plain GET of a live site's file whose body is in memory is answered
 * straight from Node's request event, before Fastify (docs/decisions.md "Serving and showcase").
 * Routing, hooks and the reply object cost a small file more than everything else it takes
 * (docs/benchmarks.md); here the lookup is a few map reads and the headers are prepared once per
 * file. Everything else — ranges, HEAD, previews, redirects, 404s, a variant or body not in memory
 * yet, a site not in the cache, the app host when sites have an origin of their own — falls
 * through to the Fastify route,
 * which answers the same way (server/test/site-fast-path.test.ts compares the two).
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { idParam } from '../http/reply.js';
import type { DeploymentIndex } from '../services/site-index.js';
import { isHtml } from './content-types.js';
import type { SiteFile } from './resolve.js';
import { preparedAnswer } from './send.js';
import type { SiteFileSource } from './site-file-source.js';
import type { RequestHost, SiteHosts } from './site-hosts.js';
import { decodeSitePath, splitSiteUrl } from './site-path.js';

export interface SiteFastPathDeps {
  peekLive(projectId: number): DeploymentIndex | null | undefined;
  source: SiteFileSource;
  countView(projectId: number, userAgent: string | undefined): void;
  /** The headers every /sites response carries (serve/site-headers.ts). */
  siteHeaders: Readonly<Record<string, string>>;
  /**
   * With SITES_ORIGIN: which host a request came to. Only the sites host (and, with
   * SITES_SUBDOMAINS, a project's own host) is answered here; the app host's redirects, and the
   * sites host's redirects to subdomains, are the route's.
   */
  hosts?: SiteHosts;
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

/**
 * What a URL was found to be: a file of a project's deployment. Kept per raw URL so that a hot
 * file's request costs one map read, not a parse and a decode; checked against the live
 * deployment on every use. Holds ids and the file record, never the deployment's file table, so
 * an old deployment is not kept in memory by it.
 */
interface Route {
  projectId: number;
  deploymentId: number;
  file: SiteFile;
  html: boolean;
}

/** URLs remembered; all forgotten at once when full (query strings make URLs endless). */
const MAX_ROUTES = 4096;

export function createSiteFastPath(deps: SiteFastPathDeps): SiteFastPath {
  let on = true;
  let served = 0;
  const routes = new Map<string, Route>();
  const hosts = deps.hosts;
  const subdomains = hosts?.subdomains ?? false;
  // Browsers on one site send the same Host every time: classified once.
  let lastHostHeader: string | undefined;
  let lastHost: RequestHost = { kind: 'app' };

  /** The route of a URL the fast path may answer, found the long way; null when it may not. */
  function route(url: string): Route | null {
    if (!url.startsWith('/sites/')) return null;
    const parts = splitSiteUrl(url);
    if (!parts || parts.rawPath === null) return null;
    const id = idParam(parts.key);
    const site = id === null ? undefined : deps.peekLive(id);
    if (!site) return null;
    const path = decodeSitePath(parts.rawPath);
    if (path === null) return null;
    const file = site.files.get(path === '' || path.endsWith('/') ? `${path}index.html` : path);
    if (!file) return null;
    const found = {
      projectId: site.projectId,
      deploymentId: site.deploymentId,
      file,
      html: isHtml(file.mime_type),
    };
    if (routes.size >= MAX_ROUTES) routes.clear();
    routes.set(url, found);
    return found;
  }

  return {
    get served() {
      return served;
    },
    stop() {
      on = false;
    },
    serve(req, res) {
      const started = deps.onServed ? performance.now() : 0;
      let url = req.url;
      if (!on || req.method !== 'GET' || url === undefined) return false;
      if (hosts) {
        const hostHeader = req.headers.host;
        if (hostHeader !== lastHostHeader) {
          lastHostHeader = hostHeader;
          lastHost = hosts.classify(hostHeader);
        }
        if (lastHost.kind === 'app') return false;
        // What Fastify's rewriteUrl makes of it (SiteHosts.rewriteUrl): p12.{host}/x is /sites/12/x.
        if (lastHost.kind === 'project')
          url = `/sites/${lastHost.projectId}${url.startsWith('/') ? url : `/${url}`}`;
        // With subdomains the sites host moves /sites/12/ to p12's own host.
        else if (subdomains) return false;
      }
      let found = routes.get(url);
      let site = found && deps.peekLive(found.projectId);
      if (!found || !site || site.deploymentId !== found.deploymentId) {
        // Not seen, or the project's live deployment changed or is not in memory.
        if (found) routes.delete(url);
        found = route(url) ?? undefined;
        if (!found) return false;
        site = deps.peekLive(found.projectId);
        if (!site) return false;
      }
      const headers = req.headers;
      if (headers.range !== undefined) return false;
      const answer = preparedAnswer(
        found.file,
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
      if (found.html) {
        const purpose = headers['sec-purpose'] ?? headers.purpose;
        if (!(typeof purpose === 'string' && purpose.includes('prefetch'))) {
          deps.countView(found.projectId, headers['user-agent']);
        }
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
