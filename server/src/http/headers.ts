/**
 * Security headers for the platform's own pages and API. Site content under /sites and /preview
 * gets its own sandboxing headers from serve/ instead.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isSiteContentPath } from '../serve/site-path.js';

/** The Strict-Transport-Security value HSTS_MAX_AGE and HSTS_SUBDOMAINS ask for, or null (off). */
export function hstsHeader(hsts: Config['hsts']): string | null {
  if (hsts.maxAge <= 0) return null;
  return `max-age=${hsts.maxAge}${hsts.includeSubDomains ? '; includeSubDomains' : ''}`;
}

/**
 * The app's CSP. Scripts: only those carrying `nonce` — the web app's own script and module
 * preload tags, which the server stamps with a fresh nonce for each index.html it sends
 * (http/web-app.ts) — and what they load ('strict-dynamic': the chunks of lazy pages). Not 'self':
 * on a one-host install every uploaded script under /sites and /preview is 'self' too, so one HTML
 * injection anywhere in the app would run any of them with the visitor's session. Answers that are
 * not the app's page (API, assets, errors) allow no script at all.
 */
export function appCsp(sitesOrigin?: string, nonce?: string): string {
  const frames = ["'self'", ...(sitesOrigin ? [sitesOrigin] : [])].join(' ');
  return [
    "default-src 'self'",
    nonce ? `script-src 'nonce-${nonce}' 'strict-dynamic'` : "script-src 'none'",
    // antd writes its styles at run time (CSS-in-JS), which needs inline styles.
    "style-src 'self' 'unsafe-inline'",
    // blob: the signed-in pictures of projects, fetched with the session and shown from object
    // URLs the app's own scripts make (web/src/api/thumbnails.ts).
    // No remote host: an avatar is a data: image (docs/decisions/accounts.md "Avatars"), and nothing else of
    // the app's loads a picture from elsewhere, so no page can fire a tracking pixel.
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    `frame-src ${frames}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A hashed script or stylesheet of the built web app (http/web-app.ts serves /assets/). */
const APP_CODE_ASSET = /^\/assets\/[^/?#]+\.(?:js|css)(?:[?#]|$)/;

/** The nonce of the app page an answer carries (http/web-app.ts), for its CSP. */
const scriptNonces = new WeakMap<FastifyReply, string>();

/** Marks `reply` as the app's page whose script tags carry `nonce`. */
export function allowScriptsWithNonce(reply: FastifyReply, nonce: string): void {
  scriptNonces.set(reply, nonce);
}

export { isSiteContentPath };

/**
 * Whether a request is answered as user content: its URL is under /sites or /preview, or the
 * route that answered is (the router matches decoded paths: '/%73ites/1/' reaches '/sites/*').
 */
export function isSiteRequest(request: FastifyRequest): boolean {
  return isSiteContentPath(request.url) || isSiteContentPath(request.routeOptions.url ?? '');
}

/**
 * `hsts` goes on answers to requests that came over TLS: `request.protocol` is 'https' for a TLS
 * socket, or with TRUST_PROXY for X-Forwarded-Proto: https (browsers ignore it over plain HTTP
 * anyway, but a plain-HTTP install should not be told it is HTTPS-only).
 */
export function registerAppHeaders(
  app: FastifyInstance,
  sitesOrigin?: string,
  hsts: string | null = null,
): void {
  const csp = appCsp(sitesOrigin);
  app.addHook('onSend', async (request, reply, payload) => {
    if (isSiteRequest(request)) return payload;
    if (hsts && request.protocol === 'https') reply.header('strict-transport-security', hsts);
    // The web app's own hashed scripts and stylesheets are never documents, so the document-only
    // headers (CSP, framing, opener, referrer) would do nothing there but add about 0.4 KB to each
    // of a page's dozen scripts on a slow link (docs/benchmarks.md "Web app load"). nosniff stays:
    // it is what keeps them from being taken as another type.
    if (reply.statusCode === 200 && APP_CODE_ASSET.test(request.url)) {
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    }
    const nonce = scriptNonces.get(reply);
    reply.header('content-security-policy', nonce ? appCsp(sitesOrigin, nonce) : csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    // A rendered picture sets its own caching (revalidated, docs/render.md); its refusals, like
    // every other API answer, are not stored.
    if (
      request.url.startsWith('/api/') &&
      !(request.url.startsWith('/api/thumbnails/') && reply.statusCode < 400)
    )
      reply.header('cache-control', 'no-store');
    return payload;
  });
}
