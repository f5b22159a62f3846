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

/** Bytes of one public asset at most, and how long fetching it may take. */
const MAX_ASSET_BYTES = 5 * 1024 * 1024;
const ASSET_TIMEOUT_MS = 5_000;

function v4Parts(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** True for any address a render must never reach. */
export function isPrivateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a = 0, b = 0] = v4Parts(ip);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  if (net.isIPv6(ip)) {
    const x = ip.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
    if (mapped?.[1]) return isPrivateAddress(mapped[1]);
    return (
      x === '::' ||
      x === '::1' ||
      x.startsWith('fc') ||
      x.startsWith('fd') ||
      x.startsWith('fe8') ||
      x.startsWith('fe9') ||
      x.startsWith('fea') ||
      x.startsWith('feb') ||
      x.startsWith('ff') ||
      x.startsWith('64:ff9b:') ||
      x.startsWith('2001:db8')
    );
  }
  return true;
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
