/**
 * The admin setting "public stylesheets, fonts and images may load" (docs/render.md): such a
 * request is fetched here, not by Chromium, from an address checked to be public, so a DNS answer
 * that points inside (loopback, private, link-local, carrier-grade NAT, multicast, reserved) is
 * refused and the connection goes to exactly the address that was checked (no second lookup that a
 * rebinding name could answer differently).
 */
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Bytes of one public asset at most, and how long fetching it may take. */
const MAX_ASSET_BYTES = 5 * 1024 * 1024;
const ASSET_TIMEOUT_MS = 5_000;

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits and reach it: v4-mapped
 * (::ffff:a.b.c.d, in dotted or hex form), the deprecated v4-compatible (::a.b.c.d), SIIT's
 * (::ffff:0:a.b.c.d) and NAT64's well-known prefix (64:ff9b::a.b.c.d). Such an address is as
 * public as the IPv4 address it carries.
 */
const EMBEDS_IPV4_LAST_32 = new Set(['ipv4Mapped', 'rfc6145']);

function embeddedIpv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = addr.range();
  const p = addr.parts;
  const last32 = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  if (EMBEDS_IPV4_LAST_32.has(range)) return last32();
  // NAT64's well-known prefix only: the local-use 64:ff9b:1::/48 is refused with the other ranges.
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return last32();
  // v4-compatible (::/96, not :: or ::1): ipaddr.js calls it unicast.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return last32();
  return null;
}

/**
 * True for any address a render must never reach. Ranges come from ipaddr.js: only global unicast
 * is public. IPv6 that embeds an IPv4 address is judged by that address (v4-mapped, v4-compatible,
 * SIIT, NAT64 64:ff9b::/96); the tunnels 6to4 (2002::/16) and Teredo (2001::/32) are refused
 * outright, as is anything that does not parse.
 */
export function isPrivateAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv4 in every form inet_aton reads (0x7f.1, 2130706433), as the lookup would read it.
    addr = ipaddr.parse(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true;
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const v4 = embeddedIpv4(v6);
    if (v4) return v4.range() !== 'unicast';
    return v6.range() !== 'unicast';
  }
  return addr.range() !== 'unicast';
}

export interface FetchedAsset {
  status: number;
  contentType: string;
  body: Buffer;
}

/** Looks a host up and returns one public address, or null when any answer is private (or none). */
export async function publicAddress(host: string): Promise<{ address: string; family: number } | null> {
  if (net.isIP(host)) return isPrivateAddress(host) ? null : { address: host, family: net.isIP(host) };
  const answers = await dns.lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (answers.length === 0 || answers.some((a) => isPrivateAddress(a.address))) return null;
  return answers[0] ?? null;
}

/** GETs a public asset from the checked address; null when refused, failed, too large or too slow. */
export async function fetchPublicAsset(url: URL): Promise<FetchedAsset | null> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const target = await publicAddress(host);
  if (!target) return null;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = lib.get(
      url,
      {
        lookup: (_h, _o, cb) => cb(null, target.address, target.family),
        timeout: ASSET_TIMEOUT_MS,
        headers: { 'user-agent': 'SiteHall-render', accept: '*/*' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ASSET_BYTES) {
            req.destroy();
            resolve(null);
          } else chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 502,
            contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', () => resolve(null));
      },
    );
    const timer = setTimeout(() => req.destroy(), ASSET_TIMEOUT_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}
