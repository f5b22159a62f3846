/**
 * From the raw request URL to a site-relative path, strictly. Decoding is done here, once, on the
 * raw URL (never on Fastify's already-decoded params), so every encoded trick is seen for what it
 * is: a path either decodes to clean '/'-separated NFC segments or is refused.
 */

export type SiteArea = 'sites' | 'preview';

/** /sites and /preview, with or without a path or query: user content, never the app. */
export function isSiteContentPath(url: string): boolean {
  return /^\/(?:sites|preview)(?:[/?]|$)/.test(url);
}

export interface SiteUrl {
  area: SiteArea;
  /** The project id or preview token segment, still raw (the route validates it). */
  key: string;
  /** The raw path after '/{area}/{key}/', query included; null for '/{area}/{key}' (no slash). */
  rawPath: string | null;
  /** '?...' or ''. */
  query: string;
}

/**
 * Splits '/sites/{id}/{path}' or '/preview/{token}/{path}' without decoding anything. A null
 * rawPath means the site root was asked without its slash: redirect to `${prefix}/` + query, so
 * the page's relative links resolve inside the site.
 */
export function splitSiteUrl(url: string): SiteUrl | null {
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  const match = /^\/(sites|preview)\/([^/]+)(\/.*)?$/.exec(pathname);
  if (!match) return null;
  const [, area, key, rest] = match;
  return {
    area: area as SiteArea,
    key: key!,
    rawPath: rest === undefined ? null : rest.slice(1) + query,
    query,
  };
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// C0 and C1 controls, DEL, and both slashes: none may be inside a segment once decoded.
const FORBIDDEN_IN_SEGMENT = /[\u0000-\u001f\u007f-\u009f/\\]/;
const PLAIN_SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;

/**
 * Decodes the raw (percent-encoded) path after the site prefix. Returns the NFC-normalised path
 * relative to the site root ('' for the root, 'docs/' for a directory), or null for anything that
 * is not a plain path: bad or overlong escapes, invalid UTF-8, control characters, backslashes,
 * encoded slashes (%2f, refused rather than guessed at), '.' and '..' segments in any spelling,
 * empty segments (double or leading slashes).
 */
export function decodeSitePath(rawPathAfterPrefix: string): string | null {
  const q = rawPathAfterPrefix.indexOf('?');
  const raw = q === -1 ? rawPathAfterPrefix : rawPathAfterPrefix.slice(0, q);
  if (raw === '') return '';
  const rawSegments = raw.split('/');
  const segments: string[] = [];
  for (const [i, rawSegment] of rawSegments.entries()) {
    if (rawSegment === '') {
      // Only the last segment may be empty: 'docs/' is a directory; '', '//' and 'a//b' are not.
      if (i === rawSegments.length - 1 && i > 0) {
        segments.push('');
        continue;
      }
      return null;
    }
    const segment = decodeSegment(rawSegment);
    if (segment === null || segment === '.' || segment === '..' || FORBIDDEN_IN_SEGMENT.test(segment)) {
      return null;
    }
    segments.push(segment);
  }
  return segments.join('/');
}

/** One segment: percent-escapes to bytes, bytes to strict UTF-8, then NFC. */
function decodeSegment(raw: string): string | null {
  if (PLAIN_SEGMENT.test(raw)) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (code < 0x80) {
      bytes.push(code);
    } else {
      // Unencoded non-ASCII never comes off the wire (Node refuses it), but app.inject and proxies
      // may pass it: take it as the UTF-8 a browser would have sent.
      const codePoint = raw.codePointAt(i)!;
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) return null;
      if (codePoint > 0xffff) i++;
      bytes.push(...Buffer.from(String.fromCodePoint(codePoint), 'utf8'));
    }
  }
  try {
    // fatal: invalid sequences, overlong forms (%c0%ae) and encoded surrogates throw.
    return decoder.decode(Uint8Array.from(bytes)).normalize('NFC');
  } catch {
    return null;
  }
}
