/**
 * Where a project's live site is reached (docs/decisions/names.md "Addresses"): the one builder of
 * site addresses, used by the server's answers, the web app and the CLI.
 *
 * - With SITES_ORIGIN and SITES_SUBDOMAINS: `{name}.{sites host}/` (or `p{id}.` without a name).
 * - With SITES_ORIGIN alone: `{origin}/sites/{name or id}/`.
 * - On the default install the API answers `/sites/{name or id}/`, relative: the right host is
 *   only known where the visitor is. `completeSiteUrl` completes it there, on the sites port, and
 *   gives the site an origin of its own (`{name}.localhost:{port}`) when the visitor came by
 *   `localhost`, which browsers resolve, with every name under it, to the loopback address.
 */
export interface SiteUrlOptions {
  sitesOrigin?: string;
  sitesSubdomains?: boolean;
}

/** A site as its address needs it: the project id, and its name when it has one. */
export interface SiteRef {
  id: number;
  name: string | null;
}

/** A preview's own host label: `pv-` and its token in lower-case hex (a reserved site name too). */
export const PREVIEW_HOST_LABEL = /^pv-([0-9a-f]{32})$/;

/**
 * The label of a preview's own host, `pv-{token}`, for a token a host name carries as it is
 * (lower-case hex; older base64url tokens, whose case a host name loses, have none): a preview at
 * the root of a host of its own loads a build's root-absolute files (`/assets/app.js`), which under
 * `/preview/{token}/` on the shared sites host it could not (docs/decisions/serving.md "Preview
 * links").
 */
export function previewHostLabel(token: string): string | null {
  const label = `pv-${token}`;
  return PREVIEW_HOST_LABEL.test(label) ? label : null;
}

/** The label of a site's own host: its name, or `p{id}`. */
export function siteHostLabel(site: SiteRef): string {
  return site.name ?? `p${site.id}`;
}

/** The segment after `/sites/`: its name, or its id. */
export function sitePathKey(site: SiteRef): string {
  return site.name ?? String(site.id);
}

export function siteUrl(site: SiteRef, opts: SiteUrlOptions): string {
  if (!opts.sitesOrigin) return `/sites/${sitePathKey(site)}/`;
  if (opts.sitesSubdomains) {
    const u = new URL(opts.sitesOrigin);
    return `${u.protocol}//${siteHostLabel(site)}.${u.host}/`;
  }
  return `${opts.sitesOrigin}/sites/${sitePathKey(site)}/`;
}

/**
 * Whether a visitor's host name lets each site have an origin of its own on the sites port:
 * `localhost` and the names under it, which browsers resolve to loopback without asking DNS.
 */
export function allowsSiteHosts(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * A site address the API answered, made absolute for a visitor at `at` (the web app's location, the
 * CLI's server URL). A relative `/sites/{key}/…` on an install with a sites port goes to that port:
 * `http://{label}.localhost:{port}/…` when `at` is localhost, else `/sites/{key}/…` on the visitor's
 * own host name. Anything else resolves against `at` as a URL would.
 */
export function completeSiteUrl(url: string, at: string | URL, sitesPort: number | null): string {
  const base = new URL(at);
  if (sitesPort === null) return new URL(url, base).href;
  // A preview whose token a host name can carry gets a host of its own there too.
  const preview = /^\/preview\/([^/?#]+)\/(.*)$/.exec(url);
  if (preview && allowsSiteHosts(base.hostname)) {
    const label = previewHostLabel(preview[1] ?? '');
    if (label) return `http://${label}.localhost:${sitesPort}/${preview[2] ?? ''}`;
  }
  const match = /^\/sites\/([^/?#]+)\/(.*)$/.exec(url);
  if (!match) return new URL(url, base).href;
  const [, key, rest] = match as unknown as [string, string, string];
  if (allowsSiteHosts(base.hostname)) {
    const label = /^[0-9]+$/.test(key) ? `p${key}` : key;
    return `http://${label}.localhost:${sitesPort}/${rest}`;
  }
  return `http://${base.hostname}:${sitesPort}${url}`;
}
