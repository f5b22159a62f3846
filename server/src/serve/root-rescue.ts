/**
 * Root-absolute requests of a site served under a prefix (docs/decisions/serving.md "Root-absolute
 * builds on the default install"). A build made with `base: '/'` (Vite's default, Docusaurus,
 * VitePress) asks `/assets/app.js`, not `/sites/12/assets/app.js`. On the sites host (the sites
 * port or SITES_ORIGIN without subdomains) nothing lives at the root, so such a request, sent by a
 * page of the same host, is sent back under the prefix of the page that asked: its Referer names
 * it. No cookie, nothing stored: the answer depends only on the request.
 */
import { splitSiteUrl } from './site-path.js';

/**
 * The address under the referring site's prefix ('/sites/12/assets/app.js?v=1'), or null: the
 * Referer is not a site page of this host, the request is not a plain same-origin GET or HEAD, or
 * it is already under a site prefix.
 */
export function rootRescueLocation(
  url: string,
  headers: {
    host?: string | undefined;
    referer?: string | undefined;
    'sec-fetch-site'?: string | string[] | undefined;
  },
  method: string,
): string | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (!url.startsWith('/') || url.startsWith('//') || /^\/(?:sites|preview)(?:[/?]|$)/.test(url)) return null;
  const site = headers['sec-fetch-site'];
  // Browsers say where a request comes from; only the site's own pages are rescued.
  if (site !== undefined && site !== 'same-origin') return null;
  const referer = headers.referer;
  if (!referer || !headers.host) return null;
  let from: URL;
  try {
    from = new URL(referer);
  } catch {
    return null;
  }
  if (from.host !== headers.host) return null;
  const parts = splitSiteUrl(from.pathname);
  if (!parts || parts.rawPath === null) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(parts.key)) return null;
  return `/${parts.area}/${parts.key}${url}`;
}
