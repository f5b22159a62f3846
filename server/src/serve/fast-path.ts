/**
 * The hot path of /sites: a plain GET of a live site's file whose body is in memory is answered
 * before Fastify (docs/decisions/serving.md "Serving and showcase"): from the connection's bytes on a
 * connection still read by serve/fast-connections.ts (`answer`), else from Node's request event
 * (`serve`). Routing, hooks and the reply object cost a small file more than everything else it
 * takes (docs/benchmarks.md); here the lookup is a few map reads, and the answer is the one
 * serve/site-request.ts and serve/site-answer.ts decide for the route too, its headers kept per
 * file. Everything else — ranges, HEAD, previews, redirects, 404s, a variant or body not in
 * memory yet, a site not in the cache, the app host when sites have an origin of their own — falls
 * through to the Fastify route. SITES_FAST_PATH=off turns this path off (serve/site-server.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { idParam } from '../domain/ids.js';
import type { PageView, RequestMeta } from '../domain/request-meta.js';
import type { SiteFile } from './resolve.js';
import { type PreparedAnswer, preparedAnswer } from './site-answer.js';
import type { SiteFileSource } from './site-file-source.js';
import type { RequestHost, SiteHosts } from './site-hosts.js';
import { splitSiteUrl } from './site-path.js';
import { type DeploymentIndex, decideSiteRequest, type SiteRouting } from './site-request.js';
import { withSiteHeaders } from './site-rules.js';

export interface SiteFastPathDeps {
  peekLive(projectId: number): DeploymentIndex | null | undefined;
  /**
   * The project a site name leads to, from memory (services/site-index.ts peekName): the fast path
   * answers a name only when it is the project's own; an old name or a number is the route's to
   * redirect (docs/decisions/names.md).
   */
  peekName(label: string): number | null | undefined;
  source: SiteFileSource;
  /**
   * `meta.ip`: the address the request came from, as Fastify's `request.ip` would say; `page`: what
   * the owner's analytics keep of the view (services/site-analytics.ts).
   */
  countView(projectId: number, meta: RequestMeta, page: PageView): void;
  /** Bytes of a body sent (the owner's analytics). */
  countBytes(projectId: number, bytes: number): void;
  /** TRUST_PROXY: the client is the first address of X-Forwarded-For, as for Fastify. */
  trustProxy?: boolean;
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

/** What the fast path reads of a GET: its URL and the few headers that shape the answer. */
export interface SiteRequest {
  url: string;
  host: string | undefined;
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  userAgent: string | undefined;
  /** Sec-Purpose, or the older Purpose (prefetches are not page views). */
  purpose: string | undefined;
  /** Where the visitor came from: only its host is kept, for a page view. */
  referer: string | undefined;
  /** The connection's peer, and X-Forwarded-For: read only for a page view. */
  remoteAddress: string | undefined;
  forwardedFor: string | undefined;
  /** The port the connection arrived on: with a sites port, it alone says which host this is. */
  localPort: number | undefined;
}

/**
 * The client address Fastify's `request.ip` gives: the peer, or with TRUST_PROXY (which trusts
 * every hop) the first address in X-Forwarded-For.
 */
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy && forwardedFor) {
    const comma = forwardedFor.indexOf(',');
    const first = (comma < 0 ? forwardedFor : forwardedFor.slice(0, comma)).trim();
    if (first) return first;
  }
  return remoteAddress ?? '';
}

export interface SiteFastPath {
  /** Answers the request and returns true, or returns false and leaves it untouched. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * The answer to a plain GET without a Range (counted as served, and as a page view when it is
   * one), or null when the route must answer. For callers that write the answer themselves.
   */
  answer(request: SiteRequest): PreparedAnswer | null;
  /** Stops answering (the app is closing: Fastify answers 503 from now on). */
  stop(): void;
  /** Requests answered here (tests check that the path is taken). */
  readonly served: number;
  /**
   * Of those, the ones answered from a connection's bytes (serve/fast-connections.ts, which counts
   * them), and the connections it handed to Node's server.
   */
  readonly connections: { answered: number; handedOff: number };
  /** The metrics' callback for answers written outside Fastify (SiteFastPathDeps.onServed). */
  readonly onServed: ((status: number, ms: number) => void) | undefined;
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
  /** A page whose plain GET counts as a view (serve/site-request.ts), unless it is a prefetch. */
  html: boolean;
  /** What the view counts as: the file, or the route asked (SiteDecision's `page`). */
  page: string;
  /** The site headers with the site's own for this path (serve/site-rules.ts), or deps.siteHeaders. */
  siteHeaders: Readonly<Record<string, string>>;
  /**
   * The routing it was decided under: the owner's switches reload the deployment with a new one
   * (services/site-index.ts invalidate), and the URL is decided again.
   */
  routing: SiteRouting | null;
  /** The site's name it was decided under: a rename makes the URL a redirect (the route's). */
  siteName: string | null;
}

/** URLs remembered; all forgotten at once when full (query strings make URLs endless). */
const MAX_ROUTES = 4096;

export function createSiteFastPath(deps: SiteFastPathDeps): SiteFastPath {
  let on = true;
  let served = 0;
  const routes = new Map<string, Route>();
  const hosts = deps.hosts;
  const trustProxy = deps.trustProxy ?? false;
  // Browsers on one site send the same Host every time: classified once.
  let lastHostHeader: string | undefined;
  let lastPort: number | undefined;
  let lastDomains = hosts?.domainsVersion ?? 0;
  let lastHost: RequestHost = { kind: 'app' };
  /** The sites host of a visitor to whom sites have hosts of their own: its /sites/ URLs move. */
  let lastMoves = false;
  /** A Host the sites port refuses (one not naming it): answered by that refusal, never here. */
  let lastOff = false;

  /** The route of a URL the fast path may answer, found the long way; null when it may not. */
  function route(url: string): Route | null {
    if (!url.startsWith('/sites/')) return null;
    const parts = splitSiteUrl(url);
    if (!parts || parts.rawPath === null) return null;
    const id = idParam(parts.key);
    const projectId = id ?? deps.peekName(parts.key);
    const site = projectId == null ? undefined : deps.peekLive(projectId);
    // A named site's number, or a name that is not the site's own now: redirects.
    if (!site || site.siteName !== (id === null ? parts.key : null)) return null;
    // The same decision as the route's; a prefetch is told apart per request (below).
    const decision = decideSiteRequest(site, parts.rawPath, {
      method: 'GET',
      preview: false,
      prefetch: false,
    });
    // A file's 200; redirects, 404s and the rest are the route's to answer.
    if (decision.kind !== 'file' || decision.status !== 200) return null;
    const found = {
      projectId: site.projectId,
      deploymentId: site.deploymentId,
      file: decision.file,
      html: decision.countsView,
      page: decision.page,
      siteHeaders: withSiteHeaders(deps.siteHeaders, decision.headers),
      routing: site.routing,
      siteName: site.siteName,
    };
    if (routes.size >= MAX_ROUTES) routes.clear();
    routes.set(url, found);
    return found;
  }

  /** The prepared answer to a GET the fast path may answer (view counted), or null. */
  function answer(request: SiteRequest): PreparedAnswer | null {
    if (!on) return null;
    let url = request.url;
    if (hosts) {
      const hostHeader = request.host;
      // A custom domain added or removed changes what a Host means: classified again.
      const domains = hosts.domainsVersion;
      if (hostHeader !== lastHostHeader || request.localPort !== lastPort || domains !== lastDomains) {
        lastHostHeader = hostHeader;
        lastPort = request.localPort;
        lastDomains = domains;
        lastHost = hosts.classify(hostHeader, lastPort);
        lastMoves = lastHost.kind === 'sites' && hosts.siteHostsFor(hostHeader);
        lastOff = hosts.offSitesPort(hostHeader, lastPort);
      }
      // The app, and a preview's own host (previews are always Fastify's: their tokens are checked).
      // On the sites port, a Host that does not name it (a proxy that kept the app's host name, a
      // port mapped to another number) is refused before anything (docs/decisions/serving.md "A
      // sites port by default"): the connection path answered it with the site, unsandboxed, where
      // the request event refused it.
      if (lastHost.kind === 'app' || lastHost.kind === 'preview' || lastOff) return null;
      // What Fastify's rewriteUrl makes of it (SiteHosts.rewriteUrl): p12.{host}/x, or a custom
      // domain's /x, is /sites/12/x.
      if (lastHost.kind === 'project')
        url = `/sites/${lastHost.projectId}${url.startsWith('/') ? url : `/${url}`}`;
      else if (lastHost.kind === 'named')
        url = `/sites/${lastHost.name}${url.startsWith('/') ? url : `/${url}`}`;
      // Where sites have hosts of their own, the sites host moves /sites/12/ to its site's host.
      else if (lastMoves) return null;
    }
    let found = routes.get(url);
    let site = found && deps.peekLive(found.projectId);
    if (
      !found ||
      !site ||
      site.deploymentId !== found.deploymentId ||
      site.routing !== found.routing ||
      site.siteName !== found.siteName
    ) {
      // Not seen, or the project's live deployment changed or is not in memory.
      if (found) routes.delete(url);
      found = route(url) ?? undefined;
      if (!found) return null;
      site = deps.peekLive(found.projectId);
      if (!site) return null;
    }
    const prepared = preparedAnswer(
      found.file,
      {
        method: 'GET',
        acceptEncoding: request.acceptEncoding,
        ifNoneMatch: request.ifNoneMatch,
        ifModifiedSince: request.ifModifiedSince,
      },
      deps.source,
      { lastModified: site.lastModified, siteHeaders: found.siteHeaders },
    );
    if (!prepared) return null;
    if (found.html) {
      const purpose = request.purpose;
      if (!purpose?.includes('prefetch')) {
        deps.countView(
          found.projectId,
          {
            ip: clientAddress(request.remoteAddress, request.forwardedFor, trustProxy),
            userAgent: request.userAgent,
          },
          { path: found.page, referer: request.referer, host: request.host },
        );
      }
    }
    if (prepared.body) deps.countBytes(found.projectId, prepared.body.length);
    served++;
    return prepared;
  }

  return {
    get served() {
      return served;
    },
    connections: { answered: 0, handedOff: 0 },
    stop() {
      on = false;
    },
    answer,
    serve(req, res) {
      const started = deps.onServed ? performance.now() : 0;
      const url = req.url;
      if (req.method !== 'GET' || url === undefined) return false;
      const headers = req.headers;
      // Ranges and preconditions (412) are the route's to decide, as on the connection path.
      if (
        headers.range !== undefined ||
        headers['if-match'] !== undefined ||
        headers['if-unmodified-since'] !== undefined
      )
        return false;
      const purpose = headers['sec-purpose'] ?? headers.purpose;
      const answered = answer({
        url,
        host: headers.host,
        acceptEncoding: single(headers['accept-encoding']),
        ifNoneMatch: single(headers['if-none-match']),
        ifModifiedSince: single(headers['if-modified-since']),
        userAgent: headers['user-agent'],
        purpose: typeof purpose === 'string' ? purpose : undefined,
        referer: headers.referer,
        remoteAddress: req.socket?.remoteAddress,
        forwardedFor: single(headers['x-forwarded-for']),
        localPort: req.socket?.localPort,
      });
      if (!answered) return false;
      res.writeHead(answered.status, answered.headers as string[]);
      res.end(answered.body ?? undefined);
      deps.onServed?.(answered.status, performance.now() - started);
      return true;
    },
    onServed: deps.onServed,
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
