import { FILE_TYPES, type FileType } from '@sitehall/contracts';

/**
 * What a stored MIME type means for serving: the Content-Type sent, whether a browser may show the
 * file inline or must download it, and whether it is worth compressing.
 */

const FALLBACK = 'application/octet-stream';

/** 'Text/HTML; charset=x' → 'text/html'. */
export function essence(mime: string): string {
  return (mime.split(';', 1)[0] ?? '').trim().toLowerCase();
}

function isTextual(type: string): boolean {
  return (
    type.startsWith('text/') ||
    type === 'application/javascript' ||
    type === 'application/json' ||
    type === 'application/xml' ||
    type === 'application/manifest+json' ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/**
 * The Content-Type header: the stored type as the ingest chose it. The ingest adds
 * "; charset=utf-8" to text files whose bytes are valid UTF-8 and leaves it off the others, so a
 * GBK page still gets its own <meta charset> honoured; no charset is invented here. A malformed
 * stored type falls back to octet-stream.
 */
export function contentTypeHeader(mime: string): string {
  const type = essence(mime);
  if (!MEDIA_TYPE.test(type)) return FALLBACK;
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(mime)?.[1];
  return charset ? `${type}; charset=${charset.toLowerCase()}` : type;
}

const INLINE_FAMILIES = ['image/', 'font/', 'audio/', 'video/', 'model/'];
/**
 * The inline types outside those families: FILE_TYPES' inline ones, and JavaScript's older name,
 * which versions stored before the mime-types package moved to text/javascript still carry.
 */
const INLINE_TYPES = new Set([
  ...Object.values(FILE_TYPES as Record<string, FileType>)
    .filter((type) => type.inline && !INLINE_FAMILIES.some((family) => type.mime.startsWith(family)))
    .map((type) => type.mime),
  'application/javascript',
]);

/**
 * Web content a browser may render in place: pages, styles, scripts, JSON, images, fonts, media,
 * 3D models, captions, wasm, PDF and plain text. Anything else (md, csv, xml, archives, pdf.js's
 * .bcmap, and every download-only file, stored as application/octet-stream) is sent as an
 * attachment, so no other renderer is ever reached by navigating to a user's file; a page's
 * scripts still fetch it.
 */
export function isInlineWebContent(mime: string): boolean {
  const type = essence(mime);
  return INLINE_TYPES.has(type) || INLINE_FAMILIES.some((family) => type.startsWith(family));
}

/**
 * A value of RFC 8187 (5987) ext-value: what encodeURIComponent leaves as it is but attr-char
 * does not allow (' ( ) *) is percent-encoded too. A bare ' ended the value early for a strict
 * parser: it separates the charset, the language and the value.
 */
function extValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Content-Disposition for a downloaded file, with its own name (RFC 6266 with a UTF-8 form). */
export function attachmentDisposition(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1) || 'download';
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${extValue(name)}`;
}

/**
 * Text formats shrink well: html, css, js, mjs, json, map, webmanifest, svg, xml, txt, md, csv all
 * have textual types. Images, fonts, media and archives are compressed already.
 */
export function isCompressible(mime: string): boolean {
  return isTextual(essence(mime));
}

export function isHtml(mime: string): boolean {
  const type = essence(mime);
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** A document a visitor navigates to and a browser runs: a page, an SVG image, an XML document. */
export function isDocument(mime: string): boolean {
  const type = essence(mime);
  return isHtml(mime) || type === 'image/svg+xml' || type === 'text/xml' || type === 'application/xml';
}
