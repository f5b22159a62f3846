/**
 * Every file type SiteHall knows, each written once (docs/architecture.md "Descriptors: one fact,
 * one place"): its extension, the MIME type it is stored and served with, whether it is text
 * (labelled `charset=utf-8` when its bytes are UTF-8), whether a browser may show it in place or
 * must download it, how the content check scans it, whether the review page shows it as source,
 * and its group on the settings page. Derived from it: the web types an upload may hold
 * (WEB_FILE_TYPES, limits.ts), the ingest's text types and media types, the content check's
 * scan sets, the review's source view, the serving's inline types, the entry-page rule and the
 * settings page's groups. `file-types.spec.ts` (contracts) and `server/src/file-types.spec.ts`
 * hold every consumer to it. An extension an admin adds that is not here is stored with the MIME
 * type the `mime-types` package gives it and served by that type's family rules.
 *
 * The order is the settings page's: group by group, each group's types in the order shown.
 */

/** How the content check reads a file (docs/content-check.md). null: not scanned. */
export type FileScan = 'page' | 'script' | 'style' | 'json' | 'svg' | 'text' | null;

export const FILE_TYPE_GROUPS = {
  archive: '压缩包',
  code: '网页与代码',
  image: '图片',
  font: '字体',
  media: '音频与视频',
  model: '3D 模型',
  document: '文档与数据',
} as const;
export type FileTypeGroup = keyof typeof FILE_TYPE_GROUPS;

export interface FileType {
  /** The stored and served type, without parameters (the ingest adds `; charset=utf-8`). */
  mime: string;
  /** Text: labelled UTF-8 when its bytes are, compressed when served. */
  text: boolean;
  /** A browser may show it in place; otherwise it is sent as an attachment. */
  inline: boolean;
  scan: FileScan;
  /** The review page's file view shows it (docs/product.md "The content check"). */
  source: boolean;
  group: FileTypeGroup;
}

const t = (
  mime: string,
  group: FileTypeGroup,
  facts: { text?: boolean; inline?: boolean; scan?: FileScan; source?: boolean } = {},
): FileType => ({
  mime,
  text: facts.text ?? false,
  inline: facts.inline ?? true,
  scan: facts.scan ?? null,
  source: facts.source ?? false,
  group,
});
const code = { text: true, source: true };

export const FILE_TYPES = {
  zip: t('application/zip', 'archive', { inline: false }),
  rar: t('application/vnd.rar', 'archive', { inline: false }),
  '7z': t('application/x-7z-compressed', 'archive', { inline: false }),

  html: t('text/html', 'code', { ...code, scan: 'page' }),
  htm: t('text/html', 'code', { ...code, scan: 'page' }),
  css: t('text/css', 'code', { ...code, scan: 'style' }),
  js: t('text/javascript', 'code', { ...code, scan: 'script' }),
  mjs: t('text/javascript', 'code', { ...code, scan: 'script' }),
  json: t('application/json', 'code', { ...code, scan: 'json' }),
  map: t('application/json', 'code', { ...code, scan: 'json' }),
  xml: t('application/xml', 'code', { ...code, inline: false, scan: 'text' }),
  webmanifest: t('application/manifest+json', 'code', { ...code, scan: 'json' }),
  wasm: t('application/wasm', 'code'),

  png: t('image/png', 'image'),
  jpg: t('image/jpeg', 'image'),
  jpeg: t('image/jpeg', 'image'),
  gif: t('image/gif', 'image'),
  svg: t('image/svg+xml', 'image', { ...code, scan: 'svg' }),
  webp: t('image/webp', 'image'),
  avif: t('image/avif', 'image'),
  bmp: t('image/bmp', 'image'),
  ico: t('image/vnd.microsoft.icon', 'image'),

  woff: t('font/woff', 'font'),
  woff2: t('font/woff2', 'font'),
  ttf: t('font/ttf', 'font'),
  otf: t('font/otf', 'font'),
  eot: t('application/vnd.ms-fontobject', 'font'),
  pfb: t('application/x-font-type1', 'font'),

  mp3: t('audio/mpeg', 'media'),
  mp4: t('video/mp4', 'media'),
  webm: t('video/webm', 'media'),
  ogg: t('audio/ogg', 'media'),
  wav: t('audio/wav', 'media'),
  vtt: t('text/vtt', 'media', { text: true }),

  glb: t('model/gltf-binary', 'model'),
  gltf: t('model/gltf+json', 'model', { text: true }),

  txt: t('text/plain', 'document', { ...code, scan: 'text' }),
  md: t('text/markdown', 'document', { ...code, inline: false, scan: 'text' }),
  csv: t('text/csv', 'document', { ...code, inline: false, scan: 'text' }),
  pdf: t('application/pdf', 'document'),
  bcmap: t('application/octet-stream', 'document', { inline: false }),
  icc: t('application/vnd.iccprofile', 'document'),
  jsonld: t('application/ld+json', 'document', { text: true }),
} as const satisfies Record<string, FileType>;

export type KnownFileType = keyof typeof FILE_TYPES;

/** The facts of an extension (lower case, no dot), or undefined when SiteHall doesn't know it. */
export function fileTypeOf(ext: string): FileType | undefined {
  return Object.hasOwn(FILE_TYPES, ext) ? FILE_TYPES[ext as KnownFileType] : undefined;
}

/** The known extensions whose facts pass `test`, in the table's order. */
export function fileTypesWhere(test: (type: FileType) => boolean): string[] {
  return Object.entries(FILE_TYPES as Record<string, FileType>)
    .filter(([, type]) => test(type))
    .map(([ext]) => ext);
}
