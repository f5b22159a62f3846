/** Where a project's live site is reached: the contracts' builder (docs/decisions/names.md "Addresses"). */
import type { SiteUrlOptions } from '@sitehall/contracts';

export { type SiteRef, type SiteUrlOptions, siteUrl } from '@sitehall/contracts';

/** A preview link: /preview/{token}/ on this host, or on SITES_ORIGIN's own host (never a subdomain). */
export function previewUrl(token: string, opts: SiteUrlOptions): string {
  return `${opts.sitesOrigin ?? ''}/preview/${token}/`;
}

/** A rendered picture (docs/render.md): content-addressed, so cached for good by browsers. */
export function thumbnailUrl(sha256: string | null | undefined): string | null {
  return sha256 ? `/api/thumbnails/${sha256}.webp` : null;
}
