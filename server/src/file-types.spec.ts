/**
 * Each of contracts' FILE_TYPES agrees with every server consumer (docs/architecture.md
 * "Descriptors: one fact, one place"): the type stored for it, text or not (the extraction
 * worker's own copy included), inline or download and compressed or not when served, how the
 * content check scans it and whether it can be a site's entry page.
 */
import { FILE_TYPES, type FileType } from '@sitehall/contracts';
import mime from 'mime-types';
import { describe, expect, it } from 'vitest';
import { HTML, isScanned, PLAIN_TEXT, readsWhole, SCRIPT } from './content-check/analyze.js';
import { isTextExtension, TEXT_EXTENSIONS } from './ingest/content.js';
import { mediaTypeFor } from './ingest/media-type.js';
import { findEntryFile } from './ingest/site-tree.js';
import { isCompressible, isHtml, isInlineWebContent } from './serve/content-types.js';

const entries = Object.entries(FILE_TYPES as Record<string, FileType>);

describe('FILE_TYPES across the server', () => {
  it.each(entries)('%s: stored, served, scanned and found as the table says', (ext, type) => {
    // The mime-types package, which chose the type before the table, agrees: nothing stored changes.
    expect(mime.lookup(ext) || 'application/octet-stream').toBe(type.mime);
    const stored = mediaTypeFor(ext, true);
    expect(stored).toBe(type.text ? `${type.mime}; charset=utf-8` : type.mime);
    expect(mediaTypeFor(ext, false)).toBe(type.mime);
    expect(isTextExtension(ext)).toBe(type.text);
    expect(isInlineWebContent(stored)).toBe(type.inline);
    expect(isCompressible(stored)).toBe(type.text);
    expect(isHtml(stored)).toBe(type.scan === 'page');
    expect(HTML.has(ext)).toBe(type.scan === 'page');
    expect(SCRIPT.has(ext)).toBe(type.scan === 'script');
    expect(PLAIN_TEXT.has(ext)).toBe(['style', 'script', 'json', 'text'].includes(type.scan ?? ''));
    expect(readsWhole(ext)).toBe(['page', 'svg', 'script', 'style', 'json'].includes(type.scan ?? ''));
    expect(isScanned(ext)).toBe(type.scan !== null);
    expect(findEntryFile([`home.${ext}`])).toBe(type.scan === 'page' ? `home.${ext}` : null);
  });

  it('the extraction worker’s text types are the table’s', () => {
    const text = entries.filter(([, type]) => type.text).map(([ext]) => ext);
    expect([...TEXT_EXTENSIONS].sort()).toEqual(text.sort());
  });

  it('serves inline what it served inline before the table, JavaScript’s older name included', () => {
    for (const type of [
      'text/html',
      'text/css',
      'text/javascript',
      'application/javascript',
      'application/json',
      'application/manifest+json',
      'application/wasm',
      'application/pdf',
      'text/plain',
      'text/vtt',
      'application/ld+json',
      'application/vnd.ms-fontobject',
      'application/x-font-type1',
      'application/vnd.iccprofile',
      'image/heic',
      'font/collection',
    ])
      expect(isInlineWebContent(type), type).toBe(true);
    for (const type of [
      'text/markdown',
      'text/csv',
      'application/xml',
      'application/zip',
      'application/octet-stream',
    ])
      expect(isInlineWebContent(type), type).toBe(false);
  });

  it('an extension an admin adds that the table lacks keeps the mime-types answer', () => {
    expect(mediaTypeFor('heic', true)).toBe('image/heic');
    expect(mediaTypeFor('nosuchtype', true)).toBe('application/octet-stream');
  });
});
