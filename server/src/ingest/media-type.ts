/** The Content-Type an accepted file is served with, chosen by its extension (contracts' FILE_TYPES). */
import { createRequire } from 'node:module';
// The table's own module, not the package's index: the extraction worker loads this module
// (plan.ts), and the index's schemas (zod) cost a new worker ≈180 ms of CPU to load
// (docs/benchmarks.md "7z ingest: session 35").
import { FILE_TYPES, type FileType, fileTypeOf } from '@sitehall/contracts/file-types';
import type mimeTypes from 'mime-types';
import { isTextExtension } from './content.js';

/**
 * The mime-types package, loaded the first time an extension FILE_TYPES lacks is asked about:
 * loading it (its database of 2,000 types, indexed on load) cost each new extraction worker
 * ≈20 ms of CPU, and most uploads have no such extension.
 */
let mimeLoaded: typeof mimeTypes | undefined;
const mime = () => (mimeLoaded ??= createRequire(import.meta.url)('mime-types') as typeof mimeTypes);

/** Text is labelled UTF-8 only when its bytes are UTF-8, so legacy (GBK) pages keep their meta charset. */
export function mediaTypeFor(ext: string, utf8: boolean): string {
  // An extension an admin added that FILE_TYPES doesn't know: the mime-types package's answer.
  const type = fileTypeOf(ext)?.mime ?? (mime().lookup(ext) || 'application/octet-stream');
  return isTextExtension(ext) && utf8 ? `${type}; charset=utf-8` : type;
}

/** The types the content check reads as a page, an SVG, a script or a style, under FILE_TYPES' extensions. */
const READ_AS_ACTIVE = new Set(
  Object.values(FILE_TYPES as Record<string, FileType>)
    .filter(
      (type) =>
        type.scan === 'page' || type.scan === 'svg' || type.scan === 'script' || type.scan === 'style',
    )
    .map((type) => type.mime),
);

/**
 * An extension an admin allowed that FILE_TYPES doesn't know, whose type (the mime-types
 * package's) is one the content check reads only under FILE_TYPES' own extensions: `shtml` is
 * text/html, `svgz` image/svg+xml. The check reads files by extension, so such a file would run on
 * the sites' origin unread (a page that sends the visitor's data away checked clean): it is kept
 * as a download instead (docs/decisions/serving.md "Downloads").
 */
export function unreadActiveType(ext: string): boolean {
  if (fileTypeOf(ext)) return false;
  const type = mime().lookup(ext);
  return type !== false && READ_AS_ACTIVE.has(type);
}
