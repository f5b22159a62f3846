/** Where a project's live site is reached: /sites/{id}/ on this host, or on SITES_ORIGIN. */
export interface SiteUrlOptions {
  sitesOrigin?: string;
  sitesSubdomains?: boolean;
}

export function siteUrl(projectId: number, opts: SiteUrlOptions): string {
  if (!opts.sitesOrigin) return `/sites/${projectId}/`;
  if (opts.sitesSubdomains) {
    const u = new URL(opts.sitesOrigin);
    return `${u.protocol}//p${projectId}.${u.host}/`;
  }
  return `${opts.sitesOrigin}/sites/${projectId}/`;
}

/** A preview link: /preview/{token}/ on this host, or on SITES_ORIGIN's own host (never a subdomain). */
export function previewUrl(token: string, opts: SiteUrlOptions): string {
  return `${opts.sitesOrigin ?? ''}/preview/${token}/`;
}

/** A rendered picture (docs/render.md): content-addressed, so cached for good by browsers. */
export function thumbnailUrl(sha256: string | null | undefined): string | null {
  return sha256 ? `/api/thumbnails/${sha256}.webp` : null;
}
