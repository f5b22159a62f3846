/**
 * Custom domains as the serving paths see them (docs/product.md "Custom domains"): which project a
 * Host header names when it is one of the verified (and, when required, approved) domains. The
 * map is the whole answer, kept in memory and replaced as a whole whenever a domain, an approval or
 * the approval setting changes (services/custom-domains.ts), so a lookup is one parse and one Map
 * read, and a removed domain is gone from the next request on. `version` changes with each
 * replacement, so a caller that remembers a lookup (serve/fast-path.ts) knows when to ask again.
 */

export class CustomDomainHosts {
  #projects: ReadonlyMap<string, number> = new Map();
  #version = 0;

  /** Bumped on every replacement of the map. */
  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#projects.size;
  }

  /** Puts a new map in place: lower-case ASCII domains → project ids. */
  replace(entries: Iterable<readonly [string, number]>): void {
    this.#projects = new Map(entries);
    this.#version++;
  }

  /** Whether a project has a served domain (its change may change the map). */
  hasProject(projectId: number): boolean {
    for (const id of this.#projects.values()) if (id === projectId) return true;
    return false;
  }

  /** The project a domain (as stored: lower-case, no trailing dot) is served for, or null. */
  projectOfDomain(domain: string): number | null {
    return this.#projects.get(domain) ?? null;
  }

  /** The project a Host header names, or null (any port: the proxy in front decides the port). */
  projectOf(hostHeader: string | undefined): number | null {
    if (!hostHeader || this.#projects.size === 0) return null;
    return this.#projects.get(customDomainOfHost(hostHeader)) ?? null;
  }
}

/** A Host header's name as domains are stored: lower-case, without port or trailing dot. */
export function customDomainOfHost(hostHeader: string): string {
  let host = hostHeader.toLowerCase();
  // An IPv6 literal is never a custom domain; its brackets keep its colons from reading as a port.
  if (!host.startsWith('[')) {
    const colon = host.indexOf(':');
    if (colon !== -1) host = host.slice(0, colon);
  }
  return host.endsWith('.') ? host.slice(0, -1) : host;
}
