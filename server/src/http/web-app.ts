/**
 * Serves the built web app: hashed assets with long caching, and index.html for every client
 * route (React Router decides what to show). Unknown /api paths answer the JSON envelope instead.
 * The build writes a brotli (.br) and a gzip (.gz) copy beside every text file
 * (web/vite.config.ts), so a compressed answer costs a file read, not a compression per request.
 * The public pages' answers also name the scripts they will load (ROUTE_PRELOADS_FILE).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import { messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';
import { allowScriptsWithNonce, isSiteContentPath } from './headers.js';
import { sendSiteMethodNotAllowed } from './reply.js';

/**
 * What the build writes as every script and module preload tag's nonce (web/vite.config.ts
 * `html.cspNonce`); each answer gets a fresh one in its place, which its CSP names.
 */
const NONCE_PLACEHOLDER = 'SITEHALL_CSP_NONCE';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const COMPRESSED_COPY = /\.(?:br|gz)$/;
/** The types the build writes compressed copies of (web/vite.config.ts), whatever copy is sent. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt)(?:\.br|\.gz)?$/;

/**
 * Written by the build (web/vite.config.ts routePreloads): for a few public routes, the script
 * files their first view loads on demand. Read at start; never sent.
 */
const ROUTE_PRELOADS_FILE = 'route-preloads.json';

interface RoutePreloads {
  scripts: string[];
  styles: string[];
}

/**
 * index.html for each route of the build's preload list, split where the nonce goes; '' is the
 * plain page for every other route. A listed route's page has a `modulepreload` link for each of
 * its scripts (with the nonce: under the CSP's 'strict-dynamic' a preload needs it as a script
 * does) and its stylesheets linked (Vite's loader then finds them there instead of fetching them
 * once the scripts have run).
 */
function indexPages(webDist: string): Map<string, string[]> {
  const html = fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
  const pages = new Map([['', html.split(NONCE_PLACEHOLDER)]]);
  let preloads: Record<string, RoutePreloads> = {};
  try {
    preloads = JSON.parse(fs.readFileSync(path.join(webDist, ROUTE_PRELOADS_FILE), 'utf8'));
  } catch {
    // A build without the list: every route gets the plain page, which loads all it needs anyway.
  }
  const nonce = `nonce="${NONCE_PLACEHOLDER}"`;
  for (const [route, { scripts = [], styles = [] }] of Object.entries(preloads)) {
    const links = [
      ...styles.map((file) => `<link rel="stylesheet" crossorigin href="${file}" ${nonce}>`),
      ...scripts.map((file) => `<link rel="modulepreload" crossorigin href="${file}" ${nonce}>`),
    ].join('');
    pages.set(route, html.replace('</head>', `${links}</head>`).split(NONCE_PLACEHOLDER));
  }
  return pages;
}

/** How often at most the pages ask whether index.html changed (one stat). */
const INDEX_CHECK_MS = 1_000;

/**
 * The pages of the build on disk: read at start, and again when index.html changed (a build in
 * place, `npm run build` while the server runs). A page kept from a build that is gone names
 * scripts that are gone too: the app stayed blank until a restart (session 58, an outside review;
 * docs/decisions/web-app.md "A build in place"). A page that can't be read keeps the last pages.
 */
class BuiltPages {
  #pages: Map<string, string[]>;
  #mtimeMs: number;
  #checkedAt = 0;

  constructor(private readonly webDist: string) {
    this.#mtimeMs = this.#indexMtime();
    this.#pages = indexPages(webDist);
  }

  get(): Map<string, string[]> {
    const now = Date.now();
    if (now - this.#checkedAt < INDEX_CHECK_MS) return this.#pages;
    this.#checkedAt = now;
    try {
      const mtimeMs = this.#indexMtime();
      if (mtimeMs !== this.#mtimeMs) {
        this.#pages = indexPages(this.webDist);
        this.#mtimeMs = mtimeMs;
      }
    } catch {
      // Being written, or gone for a moment: the last pages until it can be read.
    }
    return this.#pages;
  }

  #indexMtime(): number {
    return fs.statSync(path.join(this.webDist, 'index.html')).mtimeMs;
  }
}

/** The route whose page answers a URL: its path without query or trailing slash. */
function routeOf(url: string): string {
  const pathname = url.split('?')[0] ?? '';
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/** Files under assets/ carry a content hash in their names: they never change under one name. */
function isHashedAsset(file: string): boolean {
  return file.includes(`${path.sep}assets${path.sep}`);
}

/** An address in assets/ as the build names its files (`index-Cjr1KUdf.js`): no folder, no dot first. */
const ASSET_URL = /^\/assets\/([\w-][\w.-]*)(?:\?|$)/;

/**
 * The file a hashed asset's address names when it was written after the start: the static routes
 * are the files found then, and a build in place writes its chunks under new names, which the
 * new page names (docs/decisions/web-app.md "A build in place"). Null for anything else.
 */
function assetBuiltSince(webDist: string, url: string): string | null {
  const name = ASSET_URL.exec(url)?.[1];
  if (!name || COMPRESSED_COPY.test(name)) return null;
  try {
    return fs.statSync(path.join(webDist, 'assets', name)).isFile() ? `/assets/${name}` : null;
  } catch {
    return null;
  }
}

export async function registerWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const built = fs.existsSync(indexFile);
  const pages = built ? new BuiltPages(webDist) : null;
  if (built) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      preCompressed: true,
      // Our own Cache-Control below; send's default (public, max-age=0) would otherwise stand.
      cacheControl: false,
      // index.html is only ever sent with its nonce filled in, below; the compressed copies are
      // answers to their plain names, not addresses of their own.
      allowedPath: (pathname) =>
        pathname !== '/index.html' &&
        !pathname.startsWith(`/${ROUTE_PRELOADS_FILE}`) &&
        !COMPRESSED_COPY.test(pathname),
      setHeaders(res, file) {
        res.setHeader('cache-control', isHashedAsset(file) ? IMMUTABLE : 'no-cache');
        if (COMPRESSIBLE.test(file)) res.setHeader('vary', 'Accept-Encoding');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    // Methods no route is registered for (TRACE, PROPFIND…) on a site: the routes' 405.
    if (isSiteContentPath(request.url) && request.method !== 'GET' && request.method !== 'HEAD') {
      return sendSiteMethodNotAllowed(reply);
    }
    if (request.url.startsWith('/api/') || request.url === '/api') {
      return sendError(reply, 404, messages.common.apiNotFound);
    }
    // A hashed asset the build wrote after the start: sent as the start's files are.
    const asset =
      built && (request.method === 'GET' || request.method === 'HEAD')
        ? assetBuiltSince(webDist, request.url)
        : null;
    if (asset) return reply.sendFile(asset);
    // A hashed asset that is gone (an open tab asking for last deployment's chunk) is a 404: the
    // page's import fails and shows the error screen, instead of parsing index.html as a script.
    if (
      (request.method === 'GET' || request.method === 'HEAD') &&
      built &&
      !request.url.startsWith('/assets/')
    ) {
      const nonce = randomBytes(16).toString('base64');
      allowScriptsWithNonce(reply, nonce);
      // Revalidated on every visit: with no validator, never answered from a cache, so a nonce
      // is never seen twice. Compressed here, since each answer differs by its nonce (a page of
      // about 2 KB: tens of microseconds).
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('vary', 'Accept-Encoding');
      const current = pages?.get() ?? new Map<string, string[]>();
      const parts = current.get(routeOf(request.url)) ?? current.get('') ?? [];
      const html = Buffer.from(parts.join(nonce));
      const accepts = String(request.headers['accept-encoding'] ?? '');
      if (/\bbr\b/.test(accepts)) {
        const br = brotliCompressSync(html, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } });
        return reply.header('content-encoding', 'br').send(br);
      }
      if (/\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(gzipSync(html));
      return reply.send(html);
    }
    return reply
      .code(404)
      .type('text/plain; charset=utf-8')
      .send(built ? '404 未找到' : 'SiteHall: 前端尚未构建，请运行 npm run build');
  });
}
