import { describe, expect, it } from 'vitest';
import {
  attachmentDisposition,
  contentTypeHeader,
  isCompressible,
  isInlineWebContent,
} from './content-types.js';

describe('content types', () => {
  it.each([
    ['text/html; charset=utf-8', 'text/html; charset=utf-8'],
    ['text/css;charset=UTF-8', 'text/css; charset=utf-8'],
    ['text/javascript; charset="utf-8"', 'text/javascript; charset=utf-8'],
    // Not valid UTF-8 at ingest (a GBK page): no charset, so the page's own <meta charset> applies.
    ['text/html', 'text/html'],
    ['image/png', 'image/png'],
    ['font/woff2', 'font/woff2'],
    ['Application/WASM', 'application/wasm'],
    ['', 'application/octet-stream'],
    ['text/html\r\nSet-Cookie: x', 'application/octet-stream'],
    ['nonsense', 'application/octet-stream'],
  ])('%j → %j', (mime, header) => {
    expect(contentTypeHeader(mime)).toBe(header);
  });

  it('shows web content inline and downloads everything else', () => {
    for (const mime of [
      'text/html',
      'text/css',
      'text/javascript',
      'application/json',
      'image/png',
      'image/svg+xml',
      'font/woff2',
      'audio/mpeg',
      'video/mp4',
      'application/wasm',
      'application/pdf',
      'text/plain',
      'text/vtt',
      'application/ld+json',
      'application/vnd.ms-fontobject',
      'application/x-font-type1',
      'application/vnd.iccprofile',
      'model/gltf-binary',
      'model/gltf+json',
    ]) {
      expect(isInlineWebContent(mime), mime).toBe(true);
    }
    for (const mime of [
      'text/markdown',
      'text/csv',
      'application/xml',
      'application/zip',
      'application/octet-stream',
      '',
    ]) {
      expect(isInlineWebContent(mime), mime).toBe(false);
    }
  });

  it('names the downloaded file, in ASCII and UTF-8', () => {
    expect(attachmentDisposition('docs/说明 "v1".md')).toBe(
      `attachment; filename="__ _v1_.md"; filename*=UTF-8''${encodeURIComponent('说明 "v1".md')}`,
    );
  });

  // RFC 8187's attr-char has no ' ( ) *, which encodeURIComponent leaves alone: a ' in the name
  // read, to a strict parser, as the end of the charset or language part.
  it("percent-encodes ' ( ) * in the UTF-8 name, as attr-char requires", () => {
    const header = attachmentDisposition("notes/it's (v1)*.txt");
    expect(header).toBe(`attachment; filename="it's (v1)*.txt"; filename*=UTF-8''it%27s%20%28v1%29%2A.txt`);
    const ext = header.slice(header.indexOf("UTF-8''") + "UTF-8''".length);
    // Only attr-char and %XX, and it decodes to the name.
    expect(ext).toMatch(/^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+$/);
    expect(decodeURIComponent(ext)).toBe("it's (v1)*.txt");
  });

  it('compresses text formats only', () => {
    for (const mime of [
      'text/html; charset=utf-8',
      'text/css',
      'text/javascript',
      'application/json',
      'application/manifest+json',
      'image/svg+xml',
      'application/xml',
      'text/markdown',
      'text/csv',
      'text/plain',
    ]) {
      expect(isCompressible(mime), mime).toBe(true);
    }
    for (const mime of ['image/png', 'font/woff2', 'video/mp4', 'application/wasm', 'application/zip', '']) {
      expect(isCompressible(mime), mime).toBe(false);
    }
  });
});
