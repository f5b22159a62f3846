/**
 * Which host a request came to when sites have their own origin (SITES_ORIGIN, docs/product.md
 * "Serving sites"): the platform's own host, the sites host, or (SITES_SUBDOMAINS) one project's
 * subdomain p{id}.{sites host}. The sites host serves /sites and /preview and nothing of the app;
 * the app host sends /sites and /preview over to it. Hosts are read from the Host header, which a
 * reverse proxy must pass through unchanged.
 *
 * Without SITES_ORIGIN, the sites port (SITES_PORT) plays the sites host: the port the request's
 * connection arrived on says which it is (the socket's, never the Host header's: a Host naming the
 * sites port does not make the app port serve an unsandboxed site), and the app host's redirects
 * keep the name it was reached by (localhost:3000 → localhost:3001, 192.168.1.5:3000 →
 * 192.168.1.5:3001). Reached by `localhost`, each site gets an origin of its own there too:
 * `{name}.localhost:3001` and `p{id}.localhost:3001` are that site's hosts (docs/decisions/names.md
 * "Addresses").
 *
 * Site names (docs/decisions/names.md): `{name}.{sites host}` is the named site's host; which project
 * a name leads to is the site index's to say (services/site-index.ts), not the Host parser's.
 */
import type { IncomingMessage } from 'node:http';
import {
  allowsSiteHosts,
  PREVIEW_HOST_LABEL,
  previewHostLabel,
  type SiteRef,
  siteHostLabel,
  siteNameProblem,
  sitePathKey,
} from '@sitehall/contracts';
import { idParam } from '../domain/ids.js';
import type { CustomDomainHosts } from './custom-domain-hosts.js';
import type { SiteUrl } from './site-path.js';

export type RequestHost =
  | { kind: 'app' }
  | { kind: 'sites' }
  /** p{id}.{sites host}, or a custom domain: everything on it is that project's live site. */
  | { kind: 'project'; projectId: number }
  /** {name}.{sites host}: the site of that name (or one it gave up, which redirects). */
  | { kind: 'named'; name: string }
  /** pv-{token}.{sites host}: a preview link's own host, served as /preview/{token}/. */
  | { kind: 'preview'; token: string };

/** Where a live site's address belongs, when it was asked at another (a redirect). */
export interface SiteMove {
  location: string;
  /** 301: another key for the same site (its number, an old name); 302: another host. */
  status: 301 | 302;
}

export interface SiteHostOptions {
  sitesOrigin?: string;
  sitesSubdomains?: boolean;
  /** Used only without sitesOrigin: the port that serves sites (0 or absent: none). */
  sitesPort?: number;
  /** Verified custom domains (serve/custom-domain-hosts.ts); served only with sitesOrigin. */
  customDomains?: CustomDomainHosts;
  /** PUBLIC_URL: where people open the app; the platform's pages on the sites host link there. */
  publicUrl?: string;
  /** The app's port (PORT): with a sites port, the app is the same name at this port. */
  appPort?: number;
}

const APP: RequestHost = { kind: 'app' };
const SITES: RequestHost = { kind: 'sites' };

/**
 * The site a host's first label names: `p{id}`, or a name a site could hold; else the sites host
 * itself (an unknown label on the sites domain still serves no app).
 */
function hostOfLabel(label: string, previews = false): RequestHost {
  // Only under localhost, which no DNS is asked about: a token in a real host name would travel
  // in the clear (DNS, TLS's server name).
  const preview = previews ? PREVIEW_HOST_LABEL.exec(label) : null;
  if (preview) return { kind: 'preview', token: preview[1] ?? '' };
  const numbered = /^p([0-9]+)$/.exec(label);
  if (numbered) {
    const id = idParam(numbered[1]);
    return id === null ? SITES : { kind: 'project', projectId: id };
  }
  return siteNameProblem(label) === null ? { kind: 'named', name: label } : SITES;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** A name the sites port may echo into an address it gives out: a plain name, IPv4 or bracketed IPv6. */
const PLAIN_HOST_NAME = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])$/;

/**
 * A Host header as [hostname, port]: lower-case, without the one trailing dot a fully qualified
 * name may carry ('sites.example.com.' is the same host to a browser), the port as a plain number
 * (the protocol's default when absent). Null for what no browser sends (a malformed port).
 */
function hostAndPort(hostHeader: string, defaultPort: string): [string, string] | null {
  const host = hostHeader.toLowerCase();
  const colon = host.lastIndexOf(':');
  const hasPort = colon !== -1 && colon > host.lastIndexOf(']');
  let hostname = hasPort ? host.slice(0, colon) : host;
  const port = hasPort ? host.slice(colon + 1) : defaultPort;
  if (!/^[0-9]{1,5}$/.test(port)) return null;
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  return [hostname, String(Number(port))];
}

export class SiteHosts {
  /** 'https:' and 'sites.example.com[:port]', lower-case; null on the one-host install. */
  readonly #protocol: string | null;
  readonly #host: string | null;
  /** The sites host's name and port, as hostAndPort gives them, for matching requests. */
  readonly #hostname: string | null;
  readonly #port: string;
  readonly #defaultPort: string;
  readonly #subdomains: boolean;
  /** The sites port as a string, when it is the sites host (no SITES_ORIGIN). */
  readonly #sitesPort: string | null;
  readonly #customDomains: CustomDomainHosts | null;
  readonly #publicUrl: string | null;
  readonly #appPort: string | null;

  constructor(opts: SiteHostOptions) {
    const origin = opts.sitesOrigin ? new URL(opts.sitesOrigin) : null;
    this.#protocol = origin?.protocol ?? null;
    this.#host = origin?.host.toLowerCase() ?? null;
    this.#defaultPort = (origin && DEFAULT_PORTS[origin.protocol]) ?? '80';
    const own = origin ? hostAndPort(origin.host, this.#defaultPort) : null;
    this.#hostname = own?.[0] ?? null;
    this.#port = own?.[1] ?? this.#defaultPort;
    this.#subdomains = !!origin && !!opts.sitesSubdomains;
    this.#sitesPort = !origin && opts.sitesPort ? String(opts.sitesPort) : null;
    this.#customDomains = origin ? (opts.customDomains ?? null) : null;
    this.#publicUrl = opts.publicUrl ? opts.publicUrl.replace(/\/+$/, '') : null;
    this.#appPort = opts.appPort ? String(opts.appPort) : null;
  }

  /** Changes whenever the custom domains served change (a remembered classify is then stale). */
  get domainsVersion(): number {
    return this.#customDomains?.version ?? 0;
  }

  /** True when sites have an origin of their own. */
  get separate(): boolean {
    return this.#host !== null || this.#sitesPort !== null;
  }

  /** True when some requests may come to a site's own host (SITES_SUBDOMAINS, or a sites port). */
  get hasSiteHosts(): boolean {
    return this.#subdomains || this.#sitesPort !== null;
  }

  /** True when each project's site is on a host of its own (p{id}.{sites host}). */
  get subdomains(): boolean {
    return this.#subdomains;
  }

  /**
   * Which host a request came to. `localPort` is the port of the connection it arrived on
   * (socket.localPort): with a sites port it alone decides, whatever the Host header says.
   */
  classify(hostHeader: string | undefined, localPort?: number): RequestHost {
    const custom = this.#customDomains?.projectOf(hostHeader) ?? null;
    if (custom !== null) return { kind: 'project', projectId: custom };
    if (this.#sitesPort !== null) {
      if (localPort === undefined || String(localPort) !== this.#sitesPort) return APP;
      // {label}.localhost: a site's own origin on the sites port.
      const name = hostHeader ? hostAndPort(hostHeader, '80')?.[0] : undefined;
      if (name?.endsWith('.localhost')) return hostOfLabel(name.slice(0, -'.localhost'.length), true);
      return SITES;
    }
    if (this.#hostname === null || !hostHeader) return APP;
    const parsed = hostAndPort(hostHeader, this.#defaultPort);
    // Another port is another origin (the app may run on the same name at another port).
    if (!parsed || parsed[1] !== this.#port) return APP;
    const host = parsed[0];
    if (host === this.#hostname) return SITES;
    if (this.#subdomains && host.endsWith(`.${this.#hostname}`))
      return hostOfLabel(host.slice(0, -this.#hostname.length - 1));
    return APP;
  }

  /**
   * Whether sites have hosts of their own for a request that came by this Host: always with
   * SITES_SUBDOMAINS; on the sites port when the visitor came by `localhost` (or a name under it).
   */
  siteHostsFor(hostHeader: string | undefined): boolean {
    if (this.#subdomains) return true;
    if (this.#sitesPort === null || !hostHeader) return false;
    const name = hostAndPort(hostHeader, '80')?.[0];
    return name !== undefined && allowsSiteHosts(name);
  }

  /** Whether a Host header names the sites port (the sites port refuses any other Host). */
  namesSitesPort(hostHeader: string | undefined): boolean {
    return !!hostHeader && this.#sitesPort !== null && hostAndPort(hostHeader, '80')?.[1] === this.#sitesPort;
  }

  /**
   * Whether a request that arrived on the sites port has a Host that does not name it: the sites
   * port refuses it before anything else (app.ts answerOffSitesHost), the fast path included.
   */
  offSitesPort(hostHeader: string | undefined, localPort: number | undefined): boolean {
    return (
      this.#sitesPort !== null &&
      localPort !== undefined &&
      String(localPort) === this.#sitesPort &&
      !this.namesSitesPort(hostHeader)
    );
  }

  /**
   * Fastify's rewriteUrl: a project subdomain's '/x' is '/sites/{id}/x', so one route serves
   * both. Everything else is left as it came.
   */
  rewriteUrl(req: IncomingMessage): string {
    const url = req.url ?? '/';
    const host = this.classify(req.headers.host, req.socket?.localPort);
    if (host.kind === 'project') return `/sites/${host.projectId}${url.startsWith('/') ? url : `/${url}`}`;
    if (host.kind === 'named') return `/sites/${host.name}${url.startsWith('/') ? url : `/${url}`}`;
    if (host.kind === 'preview') return `/preview/${host.token}${url.startsWith('/') ? url : `/${url}`}`;
    return url;
  }

  /** The base of a site's own host (`http://foo.localhost:3001`) when this Host gives sites one. */
  #siteHostBase(label: string, hostHeader: string | undefined): string | null {
    if (this.#subdomains) return `${this.#protocol}//${label}.${this.#host}`;
    if (this.#sitesPort !== null && this.siteHostsFor(hostHeader))
      return `http://${label}.localhost:${this.#sitesPort}`;
    return null;
  }

  /**
   * Where a live site's address belongs once its project is known (`site`: its id and name), or
   * null when the request is at it: the same host form with the site's name in place of its number,
   * an old name or a look-alike spelling (301), or a site asked by path on the sites host that has
   * a host of its own there (302, as the app host's moves: it depends on how the visitor came).
   */
  siteMove(
    arrivedOn: RequestHost,
    url: SiteUrl,
    hostHeader: string | undefined,
    site: SiteRef,
  ): SiteMove | null {
    const rest = url.rawPath ?? url.query;
    if (arrivedOn.kind === 'project' || arrivedOn.kind === 'named') {
      const asked = arrivedOn.kind === 'project' ? `p${arrivedOn.projectId}` : arrivedOn.name;
      const label = siteHostLabel(site);
      if (asked === label) return null;
      const base = this.#siteHostBase(label, hostHeader);
      return base ? { location: `${base}/${rest}`, status: 301 } : null;
    }
    // The app host's moves are redirectFor's; on the one-host install the app host serves sites.
    if (arrivedOn.kind === 'app' ? this.separate : arrivedOn.kind !== 'sites') return null;
    const base = this.#siteHostBase(siteHostLabel(site), hostHeader);
    if (base) return { location: `${base}/${rest}`, status: url.key === sitePathKey(site) ? 302 : 301 };
    const key = sitePathKey(site);
    return url.key === key ? null : { location: `/sites/${key}/${rest}`, status: 301 };
  }

  /**
   * Where a /sites or /preview URL lives when it came to the wrong host, or null when this host
   * serves it: the app host sends everything to the sites origin; with subdomains, a project's
   * site moves from /sites/{id}/ to its own p{id} host.
   */
  redirectFor(arrivedOn: RequestHost, url: SiteUrl, originalUrl: string, hostHeader?: string): string | null {
    if (this.#sitesPort !== null) {
      if (arrivedOn.kind !== 'app') return null;
      // The name the visitor used (a plain name, an IPv4 or a bracketed IPv6 address).
      const name = hostHeader ? hostAndPort(hostHeader, '80')?.[0] : undefined;
      const hostname = name && PLAIN_HOST_NAME.test(name) ? name : 'localhost';
      // A preview reached by localhost goes to a host of its own, as a site does.
      const label = url.area === 'preview' && allowsSiteHosts(hostname) ? previewHostLabel(url.key) : null;
      if (label) return `http://${label}.localhost:${this.#sitesPort}/${url.rawPath ?? url.query}`;
      return `http://${hostname}:${this.#sitesPort}${originalUrl}`;
    }
    if (this.#host === null || arrivedOn.kind === 'project' || arrivedOn.kind === 'named') return null;
    if (this.#subdomains && url.area === 'sites') {
      const id = idParam(url.key);
      const label = id !== null ? `p${id}` : siteNameProblem(url.key) === null ? url.key : null;
      if (label !== null) return `${this.#protocol}//${label}.${this.#host}/${url.rawPath ?? url.query}`;
    }
    if (arrivedOn.kind === 'sites') return null;
    return `${this.#protocol}//${this.#host}${originalUrl}`;
  }

  /**
   * The showcase's address (/public on the app) for the platform's own pages at a site address
   * (serve/site-answer.ts), or null when it can't be known: PUBLIC_URL when set; on the sites port
   * the name the visitor used at the app's port (only a plain name or address, as redirectFor;
   * `{label}.localhost` is the app's `localhost`); on one host the app's own /public; with
   * SITES_ORIGIN and no PUBLIC_URL, nothing (the app may be at any name).
   */
  showcaseUrl(hostHeader: string | undefined): string | null {
    if (this.#publicUrl !== null) return `${this.#publicUrl}/public`;
    if (this.#sitesPort !== null) {
      if (this.#appPort === null) return null;
      let name = (hostHeader ? hostAndPort(hostHeader, '80')?.[0] : undefined) ?? 'localhost';
      if (name.endsWith('.localhost')) name = 'localhost';
      if (!PLAIN_HOST_NAME.test(name)) name = 'localhost';
      return `http://${name}:${this.#appPort}/public`;
    }
    return this.#host === null ? '/public' : null;
  }

  /** The sources the app's CSP frame-src allows, so its pages may frame sites and previews. */
  frameSources(): string | undefined {
    // Any name at the sites port: the app's page may be reached by any of the machine's names.
    if (this.#sitesPort !== null) return `http://*:${this.#sitesPort}`;
    if (this.#host === null) return undefined;
    const base = `${this.#protocol}//${this.#host}`;
    return this.#subdomains ? `${base} ${this.#protocol}//*.${this.#host}` : base;
  }
}
