/**
 * URL resolution for the content check: where a reference points (another host, the platform's
 * root, inside the site), whether a relative reference names a file the upload lacks, and what a
 * host is known for (exfiltration endpoints, tunnels, raw IPs, well-known services).
 */
import net from 'node:net';
import { type ServicePurpose, serviceOf } from './services.js';

/** Where a reference points: another host, the platform's root (a leading "/"), or inside the site. */
export type Target =
  | { kind: 'external'; host: string; url: string }
  | { kind: 'root'; url: string }
  | { kind: 'local' };

/** Browsers drop leading spaces and control characters and read "\" as "/". */
function browserForm(raw: string): string {
  let start = 0;
  while (start < raw.length && raw.charCodeAt(start) <= 0x20) start++;
  return raw.slice(start).replace(/\\/g, '/');
}

export function classifyUrl(raw: string): Target {
  const url = browserForm(raw);
  const first = url[0];
  if (first !== '/' && first !== 'h' && first !== 'H' && first !== 'w' && first !== 'W') {
    return { kind: 'local' };
  }
  if (/^((https?|wss?):)?\/\//i.test(url)) {
    try {
      const u = new URL(url.startsWith('//') ? `http:${url}` : url);
      const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '');
      if (!host || isLoopbackOrPrivate(host)) return { kind: 'local' };
      return { kind: 'external', host, url: url.slice(0, 300) };
    } catch {
      return { kind: 'local' };
    }
  }
  if (url.startsWith('/')) return { kind: 'root', url: url.slice(0, 200) };
  return { kind: 'local' };
}

/** A development server on the uploader's machine or network: not another site. */
function isLoopbackOrPrivate(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || a === 0 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
  }
  if (net.isIPv6(host)) return host === '::1' || /^f[cd]/i.test(host) || /^fe80:/i.test(host);
  return false;
}

export const isIpHost = (host: string): boolean => net.isIP(host) !== 0;

/** `/sites/{name}/` at the start of a root-absolute path: the site's own address on a shared host. */
const SITE_PREFIX = /^\/sites\/[^/]+\//;

/**
 * Whether a relative reference from the file `from` names a file the site does not have, the
 * way the server would look it up (the path itself, or a folder's index page). Backslashes are
 * read as "/" as browsers do. False for what can't be judged: fragments, other schemes (mailto:,
 * data:…), template placeholders, paths that leave the site, undecodable escapes.
 */
export function missingLocal(url: string, from: string, paths: Pick<ReadonlySet<string>, 'has'>): boolean {
  return missingPath(url, from, paths) !== null;
}

/**
 * The site path a reference names when the site does not have it (missingLocal), else null. A
 * root-absolute reference (`/js/app.js`) is read from the site's root, where the site's own host
 * (and the sites host's rescue, docs/decisions/serving.md) looks it up; `/sites/{name}/x` (a build
 * whose base is the site's real path) as `x`.
 */
export function missingPath(
  url: string,
  from: string,
  paths: Pick<ReadonlySet<string>, 'has'>,
): string | null {
  const trimmed = browserForm(url).trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('?')) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || /[{}$<>`]/.test(trimmed)) return null;
  let bare = trimmed.split('#', 1)[0]!.split('?', 1)[0]!;
  if (bare === '' || bare.startsWith('//')) return null;
  const root = bare.startsWith('/');
  if (root) bare = bare.replace(SITE_PREFIX, '').replace(/^\/+/, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return null;
  }
  const dir = root ? '' : from.slice(0, from.lastIndexOf('/') + 1);
  const segments = `${dir}${decoded}`.split('/');
  const resolved: string[] = [];
  for (const [i, segment] of segments.entries()) {
    if (segment === '..') {
      if (resolved.length === 0) return null;
      resolved.pop();
    } else if (segment !== '.' && (segment !== '' || i === segments.length - 1)) {
      resolved.push(segment);
    }
  }
  const path = resolved.join('/').normalize('NFC');
  // The site's root without an index page is the missing entry (its own finding).
  if (path === '') return null;
  const folder = path.endsWith('/') ? path : `${path}/`;
  if (path !== folder && paths.has(path)) return null;
  return !paths.has(`${folder}index.html`) && !paths.has(`${folder}index.htm`) ? path : null;
}

/** Whether a root-absolute reference is the site's own address on a shared host (`/sites/{name}/…`). */
export const isSitePrefixed = (url: string): boolean => SITE_PREFIX.test(browserForm(url).trim());

/** A relative path (`assets/app.js`, `./x.css`, `../y.js`): no scheme, not from the root, not a fragment. */
export function isRelativePath(url: string): boolean {
  const u = browserForm(url).trim();
  return u !== '' && !/^[#?/]/.test(u) && !/^[a-z][a-z0-9+.-]*:/i.test(u);
}

/** A file on the uploader's own computer (`C:\Users\…\pic.jpg`, `file:///…`): no visitor has it. */
export function isOwnComputerPath(url: string): boolean {
  const u = url.trim();
  return /^[a-z]:[\\/]/i.test(u) || /^file:/i.test(u);
}

/** Executables and installers: a link to one is a drive-by download, wherever it is hosted. */
const EXECUTABLE = /\.(exe|msi|apk|scr|bat|cmd|ps1|dmg|jar|vbs)$/i;

/** The executable extension a URL's path (or a download file name) ends with, if any. */
export function executableExtension(url: string): string | null {
  const path = browserForm(url).trim().split('#', 1)[0]!.split('?', 1)[0]!;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep it as written
  }
  return EXECUTABLE.exec(decoded)?.[1]?.toLowerCase() ?? null;
}

/** Server-side scripts a static site can't run: a form posting to one is a leftover of a kit. */
export const SERVER_SCRIPT = /\.(php\d?|phtml|asp|aspx|jsp|jspx|cgi|pl)$/i;

export function isServerScript(url: string): boolean {
  const path = browserForm(url).trim().split('#', 1)[0]!.split('?', 1)[0]!;
  return SERVER_SCRIPT.test(path);
}

/** A known exfiltration endpoint the URL points at: what it is, for the message. */
export function exfilEndpoint(url: string, host: string): string | null {
  if (isIpHost(host)) return 'IP 地址';
  const path = (() => {
    try {
      return new URL(url.startsWith('//') ? `http:${url}` : url).pathname;
    } catch {
      return '';
    }
  })();
  const service = serviceOf(host, path);
  return service?.receives === 'drop' ? service.name : null;
}

/**
 * What a host is for comes from the services descriptor (services.ts). These are the static
 * check's questions of it: a library, font, analytics, comment or backend service is listed, not
 * flagged as data leaving the site; a form service receives messages; a player, map or code
 * embed is an expected frame.
 */
const LISTED: ReadonlySet<ServicePurpose> = new Set([
  'cdn',
  'fonts',
  'analytics',
  'api',
  'comments',
  'backend',
]);
const EMBEDDED: ReadonlySet<ServicePurpose> = new Set(['video', 'map', 'code']);
const purposeOf = (host: string) => {
  const service = serviceOf(host);
  return service && service.receives !== 'drop' ? service.purpose : null;
};
export const isKnownService = (host: string) => LISTED.has(purposeOf(host)!);
export const isFormService = (host: string) => purposeOf(host) === 'forms';
export const isKnownEmbed = (host: string) => EMBEDDED.has(purposeOf(host)!);

/** Absolute URLs inside a piece of text (a string literal, a decoded string, a comment-free blob). */
const URL_IN_TEXT = /(?:(?:https?|wss?):)?\/\/[a-z0-9.-]{1,253}(?::\d{1,5})?(?:[/?#][^\s'"`<>()]{0,500})?/gi;

export function urlsInText(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const before = text[match.index - 1];
    // "a//b" inside a path or a regex is not a URL: a protocol-relative one starts the string or follows a quote/space/=.
    if (match[0].startsWith('//') && match.index > 0 && before && /[a-z0-9_.:/]/i.test(before)) continue;
    if (match[0].startsWith('//') && !/^\/\/[a-z0-9-]+\.[a-z]/i.test(match[0])) continue;
    out.push(match[0]);
    if (out.length >= 100) break;
  }
  return out;
}
