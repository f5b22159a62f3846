/**
 * The headers that keep user content away from the platform's session (docs/product.md "Serving
 * sites"). On the default one-host install every site response is sandboxed into an opaque origin:
 * its scripts run, but can neither read the platform's storage nor call its API as the visitor.
 */
import type { FastifyInstance } from 'fastify';
import { isSiteContentPath } from './site-path.js';

/** 'sandboxed': sites share the app's host; 'separate-origin': SITES_ORIGIN serves them. */
export type SiteIsolation = 'sandboxed' | 'separate-origin';

/** No allow-same-origin: with it, a site's script could lift the sandbox off its own page. */
export const SITE_SANDBOX_CSP =
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals allow-downloads';

/** Previews are private and short-lived: not stored by any cache, not indexed, token kept out of Referer. */
export const PREVIEW_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'private, no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
};

export function siteSecurityHeaders(
  kind: SiteIsolation,
  opts: { preview?: boolean } = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    // A sandboxed page is an opaque origin ('null'): its module scripts, fonts and fetches of its
    // own files are cross-origin requests, which only load with this. On a separate origin it lets
    // sites use each other's public files, as they could from any static host.
    'access-control-allow-origin': '*',
  };
  // Previews stay sandboxed on a separate sites origin too: they are unreviewed uploads, all on the
  // sites host itself, the parent domain of every p{id} host; unsandboxed, one could set cookies
  // that every live site receives, or read what other previews stored.
  if (kind === 'sandboxed' || opts.preview) headers['content-security-policy'] = SITE_SANDBOX_CSP;
  if (opts.preview) Object.assign(headers, PREVIEW_HEADERS);
  return headers;
}

/**
 * Puts the site headers on every response under /sites and /preview, whatever the route, method or
 * status (404s, 304s, 416s, redirects and errors included), as the last word before sending.
 */
export function registerSiteSecurityHeaders(
  app: FastifyInstance,
  kind: SiteIsolation,
  /** Headers every site response of this install adds (Strict-Transport-Security on an https sites origin). */
  extra: Readonly<Record<string, string>> = {},
): void {
  const more = Object.keys(extra).length > 0;
  // A callback hook, not an async one: it runs on every site response.
  app.addHook('onSend', (request, reply, payload, done) => {
    // The router matches decoded paths ('/%73ites/1/' is '/sites/1/' to it): the route that
    // answered counts as much as the raw URL (http/headers.ts isSiteRequest).
    const route = request.routeOptions.url;
    const headers = siteHeadersForUrl(request.url, kind) ?? (route ? siteHeadersForUrl(route, kind) : null);
    if (headers) {
      reply.headers(headers);
      if (more) reply.headers(extra);
    }
    done(null, payload);
  });
}

/**
 * The site headers for a request URL, or null outside /sites and /preview. Fastify answers a URL
 * its router cannot decode (FST_ERR_BAD_URL, e.g. '%c0%ae') without running any hook: the app's
 * `frameworkErrors` option must apply these itself for such responses to carry them.
 */
export function siteHeadersForUrl(url: string, kind: SiteIsolation): Readonly<Record<string, string>> | null {
  if (!isSiteContentPath(url)) return null;
  return HEADERS[kind][url.startsWith('/preview') ? 'preview' : 'site'];
}

/** Made once: the same few sets go on every response. */
const HEADERS = {
  sandboxed: {
    site: siteSecurityHeaders('sandboxed'),
    preview: siteSecurityHeaders('sandboxed', { preview: true }),
  },
  'separate-origin': {
    site: siteSecurityHeaders('separate-origin'),
    preview: siteSecurityHeaders('separate-origin', { preview: true }),
  },
} as const;
