/**
 * Security headers for the platform's own pages and API. Site content under /sites and /preview
 * gets its own sandboxing headers from serve/ instead.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/** The Strict-Transport-Security value HSTS_MAX_AGE and HSTS_INCLUDE_SUBDOMAINS ask for, or null (off). */
export function hstsHeader(hsts: Config['hsts']): string | null {
  if (hsts.maxAge <= 0) return null;
  return `max-age=${hsts.maxAge}${hsts.includeSubDomains ? '; includeSubDomains' : ''}`;
}

export function appCsp(sitesOrigin?: string): string {
  const frames = ["'self'", ...(sitesOrigin ? [sitesOrigin] : [])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    // antd writes its styles at run time (CSS-in-JS), which needs inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    `frame-src ${frames}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** /sites and /preview, with or without a path or query: user content, never the app. */
export function isSiteContentPath(url: string): boolean {
  return /^\/(?:sites|preview)(?:[/?]|$)/.test(url);
}

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
    reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
