/**
 * /sites/{id}/{path}: a project's live deployment. /preview/{token}/{path}: the deployment a
 * preview link shows. Both decode the raw URL strictly (serve/site-path.ts), answer from the
 * cached file tables, and carry the sandbox headers on every response (serve/site-headers.ts).
 * A project that is not live is the same 404 as one that does not exist. With SITES_ORIGIN, only
 * the sites host serves them (serve/site-hosts.ts) and it serves nothing else.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { idParam, metaOf, sendSiteMethodNotAllowed } from '../http/reply.js';
import type { DeploymentIndex } from '../serve/index.js';
import {
  decideSiteRequest,
  isSiteContentPath,
  previewGonePage,
  SITE_GONE_WORKER,
  type SiteBody,
  sendSiteFile,
  sendSitePage,
  sendSiteRedirect,
  siteNotFoundPage,
  sitePlatformPage,
  splitSiteUrl,
  withSiteHeaders,
} from '../serve/index.js';
import { rootRescueLocation } from '../serve/root-rescue.js';
import type { RequestHost } from '../serve/site-hosts.js';

const APP_HOST: RequestHost = { kind: 'app' };
/** What may be a site name in a path, in any case (a look-up lower-cases it; a DNS label's bound). */
const NAME_KEY = /^[A-Za-z][A-Za-z0-9-]{0,62}$/;
/**
 * The root of a preview whose version has no index.html and no entry file: what a reviewer
 * opening it needs to know (only a valid link gets this far; a bad one is the plain 404), with the
 * way back to the showcase every platform page has.
 */
function noEntryPage(showcase: string | null) {
  return sitePlatformPage(404, '这个版本没有首页文件（index.html），请从文件列表中打开要查看的页面。', {
    showcase,
  });
}

/**
 * The platform's 404 (or, for a preview link that opens nothing, its own page), linking back to
 * the showcase at the app's address for this request's Host.
 */
function notFound(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: 'site' | 'preview-gone' = 'site',
): SiteBody {
  const showcase = ctx.siteHosts.showcaseUrl(request.headers.host);
  return sendSitePage(reply, kind === 'site' ? siteNotFoundPage(showcase) : previewGonePage(showcase));
}

/** Prefetches and prerenders are not someone looking at the page. */
function isPrefetch(request: FastifyRequest): boolean {
  const purpose = request.headers['sec-purpose'] ?? request.headers.purpose;
  return typeof purpose === 'string' && purpose.includes('prefetch');
}

/**
 * On the sites host everything that is not a site is the same 404: no API, no web app, no health
 * check. Registered before the access hook, so not even a 401 tells that an API is there.
 */
export function registerSitesHostGuard(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.siteHosts.separate) return;
  app.addHook('onRequest', async (request, reply) => {
    const host = ctx.siteHosts.classify(request.headers.host, request.raw.socket?.localPort);
    if (host.kind === 'app') return;
    if (!isSiteContentPath(request.url)) {
      // A root-absolute request of a site's page ('/assets/app.js' from /sites/12/): under its prefix.
      const rescued =
        host.kind === 'sites' ? rootRescueLocation(request.url, request.headers, request.method) : null;
      if (rescued) {
        sendSiteRedirect(reply, rescued, 307);
        return reply.header('vary', 'Referer, Sec-Fetch-Site').send();
      }
      return reply.send(notFound(ctx, request, reply));
    }
  });
}

export async function siteRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  /** The sandbox headers of each area (serve/site-headers.ts), the same objects the fast path uses. */
  siteHeaders: { site: Readonly<Record<string, string>>; preview: Readonly<Record<string, string>> },
): Promise<void> {
  const { siteIndex, siteFiles, views, previews } = ctx.services;

  /**
   * What the request means is decided in serve/site-request.ts, for every serving path alike;
   * here it is only put on the reply. Synchronous when everything it needs is in memory: a hot file
   * costs no turn of the event loop.
   */
  function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    site: DeploymentIndex,
    rawPath: string,
    preview: boolean,
  ): SiteBody | Promise<SiteBody> {
    const decision = decideSiteRequest(site, rawPath, {
      method: request.method,
      preview,
      prefetch: isPrefetch(request),
    });
    if (decision.kind === 'not-found') return notFound(ctx, request, reply);
    if (decision.kind === 'no-entry')
      return sendSitePage(reply, noEntryPage(ctx.siteHosts.showcaseUrl(request.headers.host)));
    if (decision.kind === 'redirect') return sendSiteRedirect(reply, decision.location, decision.status);
    if (!preview && request.method === 'GET') {
      // Counted once the answer was handed to the network in full ('finish'), not before its
      // file is read: a visitor who got a 503 (storage away) or a cut-off page is no view.
      const page = decision.page;
      const meta = decision.countsView ? metaOf(request) : null;
      reply.raw.once('finish', () => {
        if (reply.statusCode >= 500) return;
        views.bytes(site.projectId, Number(reply.getHeader('content-length')) || 0);
        // A byte range of a page is not the page (no browser asks one so): one byte a request, with
        // a User-Agent of its own each, counted a view as a whole page did (outside review r5).
        if (meta && reply.statusCode !== 206)
          views.count(site.projectId, meta, {
            path: page,
            referer: request.headers.referer,
            host: request.headers.host,
          });
      });
    }
    const platform = preview ? siteHeaders.preview : siteHeaders.site;
    return sendSiteFile(request, reply, decision.file, {
      source: siteFiles,
      status: decision.status,
      lastModified: site.lastModified,
      siteHeaders: withSiteHeaders(platform, decision.headers),
      // Previews: serve/site-headers.ts makes every preview response private and unstored.
      ...(preview ? { cacheControl: 'private, no-store' } : {}),
    });
  }

  function answer(request: FastifyRequest, reply: FastifyReply): SiteBody | Promise<SiteBody> {
    const url = splitSiteUrl(request.url);
    if (!url)
      return notFound(ctx, request, reply, request.url.startsWith('/preview') ? 'preview-gone' : 'site');
    const hosts = ctx.siteHosts;
    const arrivedOn = hosts.separate
      ? hosts.classify(request.headers.host, request.raw.socket?.localPort)
      : APP_HOST;
    if (hosts.separate) {
      const moved = hosts.redirectFor(arrivedOn, url, request.originalUrl, request.headers.host);
      if (moved) return sendSiteRedirect(reply, moved);
    }
    const withSite = (site: DeploymentIndex | null): SiteBody | Promise<SiteBody> => {
      if (!site) return notFound(ctx, request, reply, url.area === 'preview' ? 'preview-gone' : 'site');
      // '/sites/12' → '/sites/12/', so the page's relative links resolve inside the site.
      if (url.rawPath === null) return sendSiteRedirect(reply, `./${url.key}/${url.query}`);
      return serve(request, reply, site, url.rawPath, url.area === 'preview');
    };
    if (url.area === 'preview') {
      return previews
        .resolve(url.key)
        .then((found) => (found ? siteIndex.deployment(found.deploymentId) : null))
        .then(withSite);
    }
    // No live site at this key. A site taken down must not go on answering from its visitors'
    // browsers: a check of its service worker gets one that unregisters itself (SITE_GONE_WORKER),
    // and on an origin of the site's own (its name's or number's host, a custom domain) the 404
    // tells the browser to drop what the site stored there, its workers' caches included.
    const noLiveSite = (): SiteBody => {
      if (request.headers['service-worker'] === 'script') return sendSitePage(reply, SITE_GONE_WORKER);
      if (arrivedOn.kind === 'project' || arrivedOn.kind === 'named')
        reply.header('clear-site-data', '"storage"');
      return notFound(ctx, request, reply);
    };
    // A live site is asked by its number or a name (docs/decisions/names.md): at another key than
    // its own (its number, an old name, a look-alike spelling) it moves to its name.
    const liveSite = (site: DeploymentIndex | null): SiteBody | Promise<SiteBody> => {
      if (!site) return noLiveSite();
      const move = hosts.siteMove(arrivedOn, url, request.headers.host, {
        id: site.projectId,
        name: site.siteName,
      });
      if (move) return sendSiteRedirect(reply, move.location, move.status);
      return withSite(site);
    };
    const ofProject = (id: number | null): SiteBody | Promise<SiteBody> => {
      if (id === null) return noLiveSite();
      const known = siteIndex.peekLive(id);
      return known === undefined ? siteIndex.liveOf(id).then(liveSite) : liveSite(known);
    };
    const id = idParam(url.key);
    if (id !== null) return ofProject(id);
    if (!NAME_KEY.test(url.key)) return noLiveSite();
    const label = url.key.toLowerCase();
    const named = siteIndex.peekName(label);
    return named === undefined ? siteIndex.projectOfName(label).then(ofProject) : ofProject(named);
  }

  /**
   * Not an async function: a body known at once is returned as it is and Fastify sends it on the
   * spot; a promise is awaited by Fastify; an answer without a body is sent here.
   */
  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    const body = answer(request, reply);
    if (body === undefined) {
      reply.send();
      return undefined;
    }
    return body;
  };

  /**
   * Answered in onRequest, before Fastify parses a body: a site's form posted to its own page (or
   * any body) is the 405 whatever its type, size or syntax, not 415, 413 or 400 地址无效; the body
   * is never read (registerBodyDeadlines closes the connection when it has not all arrived).
   */
  const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply, _done: () => void) => {
    sendSiteMethodNotAllowed(reply);
  };

  for (const prefix of ['/sites', '/preview']) {
    for (const url of [prefix, `${prefix}/*`]) {
      app.route({ method: ['GET', 'HEAD'], url, config: { access: 'public' }, handler });
      app.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        url,
        config: { access: 'public' },
        onRequest: methodNotAllowed,
        handler: (_request, reply) => sendSiteMethodNotAllowed(reply),
      });
    }
  }
}
