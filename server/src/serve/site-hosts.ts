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
 * 192.168.1.5:3001).
 */
import type { IncomingMessage } from 'node:http';
import { idParam } from '../domain/ids.js';
import type { SiteUrl } from './site-path.js';

export type RequestHost =
  | { kind: 'app' }
  | { kind: 'sites' }
  /** p{id}.{sites host}: everything on it is that project's live site. */
  | { kind: 'project'; projectId: number };

export interface SiteHostOptions {
  sitesOrigin?: string;
  sitesSubdomains?: boolean;
  /** Used only without sitesOrigin: the port that serves sites (0 or absent: none). */
  sitesPort?: number;
}

const APP: RequestHost = { kind: 'app' };
const SITES: RequestHost = { kind: 'sites' };

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

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
  }

  /** True when sites have an origin of their own. */
  get separate(): boolean {
    return this.#host !== null || this.#sitesPort !== null;
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
    if (this.#sitesPort !== null)
      return localPort !== undefined && String(localPort) === this.#sitesPort ? SITES : APP;
    if (this.#hostname === null || !hostHeader) return APP;
    const parsed = hostAndPort(hostHeader, this.#defaultPort);
    // Another port is another origin (the app may run on the same name at another port).
    if (!parsed || parsed[1] !== this.#port) return APP;
    const host = parsed[0];
    if (host === this.#hostname) return SITES;
    if (this.#subdomains && host.endsWith(`.${this.#hostname}`)) {
      const label = host.slice(0, -this.#hostname.length - 1);
      const match = /^p([0-9]+)$/.exec(label);
      const id = match ? idParam(match[1]) : null;
      // An unknown label on the sites domain is still the sites domain: it serves no app either.
      return id === null ? SITES : { kind: 'project', projectId: id };
    }
    return APP;
  }

  /** Whether a Host header names the sites port (the sites port refuses any other Host). */
  namesSitesPort(hostHeader: string | undefined): boolean {
    return !!hostHeader && this.#sitesPort !== null && hostAndPort(hostHeader, '80')?.[1] === this.#sitesPort;
  }

  /**
   * Fastify's rewriteUrl: a project subdomain's '/x' is '/sites/{id}/x', so one route serves
   * both. Everything else is left as it came.
   */
  rewriteUrl(req: IncomingMessage): string {
    const url = req.url ?? '/';
    const host = this.classify(req.headers.host);
    if (host.kind !== 'project') return url;
    return `/sites/${host.projectId}${url.startsWith('/') ? url : `/${url}`}`;
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
      const hostname = name && /^([a-z0-9.-]+|\[[0-9a-f:.]+\])$/.test(name) ? name : 'localhost';
      return `http://${hostname}:${this.#sitesPort}${originalUrl}`;
    }
    if (this.#host === null || arrivedOn.kind === 'project') return null;
    if (this.#subdomains && url.area === 'sites') {
      const id = idParam(url.key);
      if (id !== null) return `${this.#protocol}//p${id}.${this.#host}/${url.rawPath ?? url.query}`;
    }
    if (arrivedOn.kind === 'sites') return null;
    return `${this.#protocol}//${this.#host}${originalUrl}`;
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
