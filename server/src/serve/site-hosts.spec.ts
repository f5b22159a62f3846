import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SiteHosts } from './site-hosts.js';
import { splitSiteUrl } from './site-path.js';

const req = (host: string, url: string, localPort?: number) =>
  ({ headers: { host }, url, socket: { localPort } }) as unknown as IncomingMessage;

describe('SiteHosts', () => {
  it('is all app on the one-host install', () => {
    const hosts = new SiteHosts({});
    expect(hosts.separate).toBe(false);
    expect(hosts.classify('sites.test')).toEqual({ kind: 'app' });
    expect(hosts.rewriteUrl(req('p1.sites.test', '/x'))).toBe('/x');
    expect(hosts.redirectFor({ kind: 'app' }, splitSiteUrl('/sites/1/')!, '/sites/1/')).toBeNull();
    expect(hosts.frameSources()).toBeUndefined();
  });

  it('tells the sites host from the app host, port and case included', () => {
    const hosts = new SiteHosts({ sitesOrigin: 'https://Sites.Example.com:8443' });
    expect(hosts.classify('sites.example.com:8443')).toEqual({ kind: 'sites' });
    expect(hosts.classify('SITES.example.com:8443')).toEqual({ kind: 'sites' });
    expect(hosts.classify('sites.example.com')).toEqual({ kind: 'app' });
    expect(hosts.classify('app.example.com')).toEqual({ kind: 'app' });
    // The same host however it is spelt: a trailing dot (a browser sends it as typed), a padded port.
    expect(hosts.classify('sites.example.com.:8443')).toEqual({ kind: 'sites' });
    expect(hosts.classify('sites.example.com:08443')).toEqual({ kind: 'sites' });
    expect(hosts.classify('sites.example.com:+8443')).toEqual({ kind: 'app' });
    expect(hosts.classify('sites.example.com:80')).toEqual({ kind: 'app' });
    // Without SITES_SUBDOMAINS a subdomain is not a project.
    expect(hosts.classify('p1.sites.example.com:8443')).toEqual({ kind: 'app' });
    expect(hosts.redirectFor({ kind: 'app' }, splitSiteUrl('/sites/3/a?b')!, '/sites/3/a?b')).toBe(
      'https://sites.example.com:8443/sites/3/a?b',
    );
    expect(hosts.redirectFor({ kind: 'sites' }, splitSiteUrl('/sites/3/a')!, '/sites/3/a')).toBeNull();
  });

  it('maps p{id} subdomains to projects and moves /sites/{id}/ onto them', () => {
    const hosts = new SiteHosts({ sitesOrigin: 'http://sites.test', sitesSubdomains: true });
    expect(hosts.classify('p12.sites.test')).toEqual({ kind: 'project', projectId: 12 });
    expect(hosts.classify('p0.sites.test')).toEqual({ kind: 'sites' });
    expect(hosts.classify('www.sites.test')).toEqual({ kind: 'sites' });
    expect(hosts.classify('a.p12.sites.test')).toEqual({ kind: 'sites' });
    expect(hosts.classify('p12.sites.test.evil.com')).toEqual({ kind: 'app' });
    expect(hosts.classify('p12.sites.test.')).toEqual({ kind: 'project', projectId: 12 });
    expect(hosts.classify('P12.Sites.Test:80')).toEqual({ kind: 'project', projectId: 12 });
    expect(hosts.classify('sites.test.')).toEqual({ kind: 'sites' });
    expect(hosts.rewriteUrl(req('p12.sites.test', '/css/a.css?v=1'))).toBe('/sites/12/css/a.css?v=1');
    expect(hosts.rewriteUrl(req('sites.test', '/sites/12/'))).toBe('/sites/12/');
    for (const arrived of [{ kind: 'app' }, { kind: 'sites' }] as const) {
      expect(hosts.redirectFor(arrived, splitSiteUrl('/sites/12/x?y')!, '/sites/12/x?y')).toBe(
        'http://p12.sites.test/x?y',
      );
      expect(hosts.redirectFor(arrived, splitSiteUrl('/sites/12')!, '/sites/12')).toBe(
        'http://p12.sites.test/',
      );
    }
    expect(hosts.redirectFor({ kind: 'sites' }, splitSiteUrl('/preview/t/')!, '/preview/t/')).toBeNull();
    expect(hosts.redirectFor({ kind: 'app' }, splitSiteUrl('/preview/t/')!, '/preview/t/')).toBe(
      'http://sites.test/preview/t/',
    );
    expect(hosts.frameSources()).toBe('http://sites.test http://*.sites.test');
  });

  it('gives a preview whose token a host name carries a host of its own: pv-{token}', () => {
    const token = '0123456789abcdef0123456789abcdef';
    // On the sites port, by localhost (no DNS asked): the app port sends a preview to its own host.
    const port = new SiteHosts({ sitesPort: 3001 });
    expect(port.classify(`pv-${token}.localhost:3001`, 3001)).toEqual({ kind: 'preview', token });
    expect(port.classify(`PV-${token.toUpperCase()}.localhost:3001`, 3001)).toEqual({
      kind: 'preview',
      token,
    });
    // Not a token: a label like any other (no site can take that name either).
    expect(port.classify('pv-0123.localhost:3001', 3001)).toEqual({ kind: 'named', name: 'pv-0123' });
    expect(port.rewriteUrl(req(`pv-${token}.localhost:3001`, '/assets/app.js', 3001))).toBe(
      `/preview/${token}/assets/app.js`,
    );
    expect(
      port.redirectFor(
        { kind: 'app' },
        splitSiteUrl(`/preview/${token}/`)!,
        `/preview/${token}/`,
        'localhost:3000',
      ),
    ).toBe(`http://pv-${token}.localhost:3001/`);
    // By an address, where no name gives it a host: under /preview/ as before.
    expect(
      port.redirectFor(
        { kind: 'app' },
        splitSiteUrl(`/preview/${token}/`)!,
        `/preview/${token}/`,
        '192.168.1.5:3000',
      ),
    ).toBe(`http://192.168.1.5:3001/preview/${token}/`);
    // Under SITES_ORIGIN, never a subdomain: the token would be in DNS lookups and TLS's server name.
    const sub = new SiteHosts({ sitesOrigin: 'https://sites.test', sitesSubdomains: true });
    expect(sub.classify(`pv-${token}.sites.test`)).toEqual({ kind: 'sites' });
    expect(
      sub.redirectFor({ kind: 'sites' }, splitSiteUrl(`/preview/${token}/`)!, `/preview/${token}/`),
    ).toBeNull();
  });

  it('with a sites port, the connection’s port decides, never the Host header', () => {
    const hosts = new SiteHosts({ sitesPort: 3001 });
    expect(hosts.classify('localhost:3001', 3001)).toEqual({ kind: 'sites' });
    expect(hosts.classify('localhost:3000', 3001)).toEqual({ kind: 'sites' });
    expect(hosts.classify('localhost:3001', 3000)).toEqual({ kind: 'app' });
    expect(hosts.classify('localhost:3001')).toEqual({ kind: 'app' });
    expect(hosts.namesSitesPort('127.0.0.1:3001')).toBe(true);
    expect(hosts.namesSitesPort('127.0.0.1:3000')).toBe(false);
    expect(hosts.namesSitesPort(undefined)).toBe(false);
  });

  it('the showcase of the platform’s error pages: PUBLIC_URL, else the app’s port by a plain name, else /public on one host', () => {
    const port = new SiteHosts({ sitesPort: 3001, appPort: 3000 });
    expect(port.showcaseUrl('192.168.1.5:3001')).toBe('http://192.168.1.5:3000/public');
    expect(port.showcaseUrl('blog.localhost:3001')).toBe('http://localhost:3000/public');
    expect(port.showcaseUrl('[::1]:3001')).toBe('http://[::1]:3000/public');
    // Anything but a plain name or address is not echoed.
    expect(port.showcaseUrl('"><script>x</script>:3001')).toBe('http://localhost:3000/public');
    expect(port.showcaseUrl(undefined)).toBe('http://localhost:3000/public');
    expect(new SiteHosts({}).showcaseUrl('example.com')).toBe('/public');
    expect(
      new SiteHosts({ sitesOrigin: 'https://sites.example.com' }).showcaseUrl('sites.example.com'),
    ).toBeNull();
    const pub = new SiteHosts({
      sitesOrigin: 'https://sites.example.com',
      publicUrl: 'https://hall.example.com/',
    });
    expect(pub.showcaseUrl('sites.example.com')).toBe('https://hall.example.com/public');
  });
});
