/** Where a project's live site is reached: the contracts' builder (docs/decisions/names.md "Addresses"). */
import { completeSiteUrl, type SiteRef, type SiteUrlOptions, siteUrl } from '@sitehall/contracts';

export { type SiteRef, type SiteUrlOptions, siteUrl } from '@sitehall/contracts';

/**
 * Whether this install serves each site at the root of a host of its own, where `/assets/app.js` is
 * the site's own file and a client-side router sees `/` (docs/content-check.md "Where sites live"):
 * SITES_ORIGIN with SITES_SUBDOMAINS, or the sites port of the default install (each site at
 * `{name}.localhost:{port}`, where `/sites/{name}/` moves). False where sites live under
 * `/sites/{name}/` on a host they share: SITES_ORIGIN alone, or no sites port at all.
 */
export function sitesAtHostRoot(c: {
  sitesOrigin?: string;
  sitesSubdomains: boolean;
  sitesPort: number;
}): boolean {
  return c.sitesOrigin ? c.sitesSubdomains : c.sitesPort > 0;
}

/**
 * A preview link: /preview/{token}/ on SITES_ORIGIN's host, or relative on the default install,
 * where the web app and the CLI complete it (contracts' completeSiteUrl gives it a host of its own,
 * `pv-{token}.localhost`, on the sites port). Never a subdomain of SITES_ORIGIN: the token, a
 * secret, would travel in the clear in DNS lookups and TLS's server name (docs/decisions/serving.md
 * "Preview links").
 */
export function previewUrl(token: string, opts: SiteUrlOptions): string {
  return `${opts.sitesOrigin ?? ''}/preview/${token}/`;
}

/** A rendered picture (docs/render.md): content-addressed, so cached for good by browsers. */
export function thumbnailUrl(sha256: string | null | undefined): string | null {
  return sha256 ? `/api/thumbnails/${sha256}.webp` : null;
}

/** Where this install serves its sites, as the render needs it to open one (liveSiteAddress). */
export interface SiteAddressOptions extends SiteUrlOptions {
  /** PUBLIC_URL: the address visitors reach the app by; unset, `http://localhost:{PORT}`. */
  publicUrl: string;
  /** The sites port (SITES_PORT), or null when sites share the app's port. */
  sitesPort: number | null;
}

/**
 * A live site's address made absolute, as a visitor coming by the install's public address reaches
 * it: `{name}.{sites host}/` with subdomains, `{SITES_ORIGIN}/sites/{key}/` without; on the default
 * install `http://{name}.localhost:{SITES_PORT}/` when that address is localhost, else
 * `/sites/{key}/` on its host at the sites port (contracts' completeSiteUrl); in the one-port mode
 * `/sites/{key}/` on it. The render opens the page there (docs/render.md "Where the page runs").
 */
export function liveSiteAddress(site: SiteRef, opts: SiteAddressOptions): string {
  return completeSiteUrl(siteUrl(site, opts), opts.publicUrl, opts.sitesOrigin ? null : opts.sitesPort);
}
