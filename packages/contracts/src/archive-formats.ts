/**
 * The archive formats an upload may be, each written once: extensions, magic bytes, MIME types,
 * Chinese label and which reader extracts it. The server's format detection and reader choice,
 * the upload picker's accept list and archive check, ARCHIVE_EXTENSIONS and the labels of an
 * upload's type derive from this table.
 */

/** The two extractors: yauzl (streaming zip) and 7-Zip compiled to WebAssembly (rar, 7z). */
export type ArchiveReader = 'yauzl' | '7z-wasm';

interface ArchiveFormatDescriptor {
  extensions: readonly string[];
  /** Byte sequences at offset 0, any of which identifies the format (the name is not trusted). */
  signatures: readonly (readonly number[])[];
  mimeTypes: readonly string[];
  /** The upload screens' and the audit log's word for an upload of it. */
  label: string;
  /** Its name before 压缩包 where a version's way in is named (RAR 压缩包, on the review page). */
  name: string;
  reader: ArchiveReader;
}

const bytes = (latin1: string): number[] => [...latin1].map((c) => c.charCodeAt(0));

export const ARCHIVE_FORMATS = {
  zip: {
    extensions: ['zip'],
    // A local file header, or the end record of an empty archive.
    signatures: [bytes('PK\x03\x04'), bytes('PK\x05\x06')],
    mimeTypes: ['application/zip', 'application/x-zip-compressed'],
    label: '压缩包（ZIP）',
    name: 'ZIP',
    reader: 'yauzl',
  },
  rar: {
    extensions: ['rar'],
    // RAR 4 (…\x00) and RAR 5 (…\x01\x00) share these six bytes.
    signatures: [bytes('Rar!\x1a\x07')],
    mimeTypes: ['application/vnd.rar', 'application/x-rar-compressed'],
    label: '压缩包（RAR）',
    name: 'RAR',
    reader: '7z-wasm',
  },
  '7z': {
    extensions: ['7z'],
    signatures: [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
    mimeTypes: ['application/x-7z-compressed'],
    label: '压缩包（7Z）',
    name: '7z',
    reader: '7z-wasm',
  },
} as const satisfies Record<string, ArchiveFormatDescriptor>;

export type ArchiveFormat = keyof typeof ARCHIVE_FORMATS;
export const ARCHIVE_FORMAT_KEYS = Object.keys(ARCHIVE_FORMATS) as ArchiveFormat[];

/**
 * How a version's files arrived, recorded with it (deployments.upload_source): loose files, an
 * archive of one of the formats (as its bytes showed, whatever its name said), or a digest deploy
 * (`sitehall deploy`, POST /api/deploys). Versions from before it was recorded have none.
 */
export type UploadSource = 'files' | ArchiveFormat | 'deploy';
export const UPLOAD_SOURCES: readonly UploadSource[] = ['files', ...ARCHIVE_FORMAT_KEYS, 'deploy'];

/** The formats one reader extracts. */
export type ArchiveFormatReadBy<R extends ArchiveReader> = {
  [F in ArchiveFormat]: (typeof ARCHIVE_FORMATS)[F]['reader'] extends R ? F : never;
}[ArchiveFormat];

export function archiveFormatDescriptor(format: ArchiveFormat): ArchiveFormatDescriptor {
  return ARCHIVE_FORMATS[format];
}

/** Every archive extension, without the dot. */
export const ARCHIVE_EXTENSIONS: readonly string[] = ARCHIVE_FORMAT_KEYS.flatMap(
  (format) => ARCHIVE_FORMATS[format].extensions,
);

/** The format a file's extension claims (lower-case extension, no dot), or null. */
export function archiveFormatOfExtension(ext: string): ArchiveFormat | null {
  return (
    ARCHIVE_FORMAT_KEYS.find((format) => archiveFormatDescriptor(format).extensions.includes(ext)) ?? null
  );
}

/** The format the first bytes show, or null when they are no archive's. */
export function archiveFormatOfBytes(head: Uint8Array): ArchiveFormat | null {
  const matches = (sig: readonly number[]) => head.length >= sig.length && sig.every((b, i) => head[i] === b);
  return (
    ARCHIVE_FORMAT_KEYS.find((format) => archiveFormatDescriptor(format).signatures.some(matches)) ?? null
  );
}
