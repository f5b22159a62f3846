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
import {
  decodeSitePath,
  isHtml,
  isSiteContentPath,
  resolveSiteFile,
  SITE_NOT_FOUND_TEXT,
  type SiteBody,
  type SiteResolution,
  sendSiteFile,
  sendSitePage,
  sendSiteRedirect,
  sitePlatformPage,
  splitSiteUrl,
} from '../serve/index.js';
import type { DeploymentIndex } from '../services/site-index.js';

const NOT_FOUND_PAGE = sitePlatformPage(404, SITE_NOT_FOUND_TEXT);
/**
 * The root of a preview whose version has no index.html and no entry file: what a reviewer
 * opening it needs to know (only a valid link gets this far; a bad one is the plain 404).
 */
const NO_ENTRY_PAGE = sitePlatformPage(
  404,
  '这个版本没有首页文件（index.html），请从文件列表中打开要查看的页面。',
);

function notFound(reply: FastifyReply, page = NOT_FOUND_PAGE): SiteBody {
  return sendSitePage(reply, page);
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
    if (ctx.siteHosts.classify(request.headers.host, request.raw.socket?.localPort).kind === 'app') return;
    if (!isSiteContentPath(request.url)) return reply.send(notFound(reply));
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
   * Every branch sets status and headers and returns the body (see SiteBody), synchronously when
   * everything it needs is in memory: a hot file costs no turn of the event loop.
   */
  function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    site: DeploymentIndex,
    rawPath: string,
    preview: boolean,
  ): SiteBody | Promise<SiteBody> {
    const path = decodeSitePath(rawPath);
    if (path === null) return notFound(reply);
    // The usual cases — a file by its own name, a folder's index.html — straight from the table.
    const direct = site.files.get(path === '' || path.endsWith('/') ? `${path}index.html` : path);
    if (direct) return sendFound(request, reply, site, { kind: 'file', status: 200, file: direct }, preview);
    const q = rawPath.indexOf('?');
    return resolveSiteFile((p) => site.files.get(p), path, {
      entryFile: site.entryFile,
      query: q === -1 ? '' : rawPath.slice(q),
    }).then((resolution) =>
      !resolution && preview && path === '' && !site.entryFile
        ? notFound(reply, NO_ENTRY_PAGE)
        : sendFound(request, reply, site, resolution, preview),
    );
  }

  function sendFound(
    request: FastifyRequest,
    reply: FastifyReply,
    site: DeploymentIndex,
    resolution: SiteResolution | null,
    preview: boolean,
  ): SiteBody | Promise<SiteBody> {
    if (!resolution) return notFound(reply);
    if (resolution.kind === 'redirect') return sendSiteRedirect(reply, resolution.location);
    if (
      !preview &&
      resolution.kind === 'file' &&
      request.method === 'GET' &&
      isHtml(resolution.file.mime_type) &&
      !isPrefetch(request)
    ) {
      // Counted once the answer was handed to the network in full ('finish'), not before its
      // file is read: a visitor who got a 503 (storage away) or a cut-off page is no view.
      const meta = metaOf(request);
      reply.raw.once('finish', () => {
        if (reply.statusCode < 500) views.count(site.projectId, meta);
      });
    }
    return sendSiteFile(request, reply, resolution.file, {
      source: siteFiles,
      status: resolution.status,
      lastModified: site.lastModified,
      siteHeaders: preview ? siteHeaders.preview : siteHeaders.site,
      // Previews: serve/site-headers.ts makes every preview response private and unstored.
      ...(preview ? { cacheControl: 'private, no-store' } : {}),
    });
  }

  function answer(request: FastifyRequest, reply: FastifyReply): SiteBody | Promise<SiteBody> {
    const url = splitSiteUrl(request.url);
    if (!url) return notFound(reply);
    if (ctx.siteHosts.separate) {
      const moved = ctx.siteHosts.redirectFor(
        ctx.siteHosts.classify(request.headers.host, request.raw.socket?.localPort),
        url,
        request.originalUrl,
        request.headers.host,
      );
      if (moved) return sendSiteRedirect(reply, moved);
    }
    const withSite = (site: DeploymentIndex | null): SiteBody | Promise<SiteBody> => {
      if (!site) return notFound(reply);
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
    const id = idParam(url.key);
    if (id === null) return notFound(reply);
    const known = siteIndex.peekLive(id);
    return known === undefined ? siteIndex.liveOf(id).then(withSite) : withSite(known);
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

  const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply) => {
    sendSiteMethodNotAllowed(reply);
  };

  for (const prefix of ['/sites', '/preview']) {
    for (const url of [prefix, `${prefix}/*`]) {
      app.route({ method: ['GET', 'HEAD'], url, config: { access: 'public' }, handler });
      app.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        url,
        config: { access: 'public' },
        handler: methodNotAllowed,
      });
    }
  }
}
