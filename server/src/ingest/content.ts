/**
 * What a file's first bytes must look like for its extension: a .png has to be a PNG, text types
 * must not be binary, and executables are refused whatever they are called. Runs inside the
 * extraction worker (see refusal.ts about imports).
 */
import type { ArchiveFormat } from '@sitehall/contracts';
import { FILE_TYPES, type FileType } from '@sitehall/contracts/file-types';
import { displayName, extensionOfPath } from './names.js';
import { Refusal } from './refusal.js';

/** What hashing a file while it is written tells about its bytes (ingest/digest.ts makes it). */
export interface ContentFacts {
  sha256: string;
  /** 0 when the CRC was not asked for. */
  crc32: number;
  size: number;
  head: Buffer;
  /** Always true when the UTF-8 check was not asked for. */
  utf8: boolean;
}

/** A file that passed every check, as the worker hands it back. */
export interface CheckedFile {
  /** NFC, '/'-separated, before any wrapper folder is unwrapped. */
  path: string;
  tempFile: string;
  size: number;
  sha256: string;
  utf8: boolean;
  /** Of a type that is not web content (see plan.ts): stored and served as a download only. */
  downloadOnly: boolean;
  /** Its content is one the blob store holds for the account already: not written (tempFile ''). */
  held?: boolean;
}

/**
 * contracts' FILE_TYPES with `text: true`, from the table's own module: this runs in the extraction
 * worker, which loads nothing of contracts but that module (the package's index and its schemas
 * cost a new worker ≈180 ms of CPU; docs/benchmarks.md "7z ingest: session 35").
 */
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set(
  Object.entries(FILE_TYPES as Record<string, FileType>)
    .filter(([, type]) => type.text)
    .map(([ext]) => ext),
);

/** Files whose content is text; they are served with charset=utf-8 when they are valid UTF-8. */
export function isTextExtension(ext: string): boolean {
  return TEXT_EXTENSIONS.has(ext);
}

const startsWith = (head: Buffer, bytes: number[] | string, at = 0): boolean => {
  const sig = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return head.length >= at + sig.length && head.subarray(at, at + sig.length).equals(sig);
};

/**
 * The archive format by magic bytes, for an archive kept as a file inside an upload. This runs in
 * the extraction worker, which loads nothing of contracts but its file-types module, so it repeats
 * the signatures of contracts' ARCHIVE_FORMATS; archive-formats.spec.ts holds the two equal.
 */
export function archiveFormatOf(head: Buffer): ArchiveFormat | null {
  if (startsWith(head, 'PK\x03\x04') || startsWith(head, 'PK\x05\x06')) return 'zip';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7z';
  if (startsWith(head, 'Rar!\x1a\x07')) return 'rar';
  return null;
}

const FONT = (h: Buffer) =>
  startsWith(h, [0, 1, 0, 0]) ||
  startsWith(h, 'OTTO') ||
  startsWith(h, 'true') ||
  startsWith(h, 'typ1') ||
  startsWith(h, 'ttcf');
const AVIF_BRANDS = new Set(['avif', 'avis', 'mif1', 'msf1', 'miaf']);

/**
 * Signature checks of the binary types. Text types must not look binary; other types (pdf.js's
 * .bcmap, an extension an admin added, download-only files) are checked for executables only.
 */
const BINARY_SIGNATURES: Record<string, (head: Buffer) => boolean> = {
  png: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpg: (h) => startsWith(h, [0xff, 0xd8, 0xff]),
  jpeg: (h) => startsWith(h, [0xff, 0xd8, 0xff]),
  gif: (h) => startsWith(h, 'GIF87a') || startsWith(h, 'GIF89a'),
  webp: (h) => startsWith(h, 'RIFF') && startsWith(h, 'WEBP', 8),
  bmp: (h) => startsWith(h, 'BM'),
  ico: (h) => startsWith(h, [0, 0, 1, 0]) || startsWith(h, [0, 0, 2, 0]),
  avif: (h) => startsWith(h, 'ftyp', 4) && AVIF_BRANDS.has(h.toString('latin1', 8, 12)),
  woff: (h) => startsWith(h, 'wOFF'),
  woff2: (h) => startsWith(h, 'wOF2'),
  ttf: FONT,
  otf: FONT,
  // Embedded OpenType: the magic number 0x504C after the fixed header fields.
  eot: (h) => startsWith(h, 'LP', 34),
  // Type 1 font in PFB segments (each starts 0x80, the first is ASCII: 1), or the bare CFF data
  // pdf.js ships under this name (web/standard_fonts/*.pfb): version 1.0, a 4-byte header, an
  // offset size of 1 to 4.
  pfb: (h) => startsWith(h, [0x80, 0x01]) || (startsWith(h, [0x01, 0x00, 0x04]) && h[3]! >= 1 && h[3]! <= 4),
  icc: (h) => startsWith(h, 'acsp', 36),
  glb: (h) => startsWith(h, 'glTF'),
  pdf: (h) => h.subarray(0, 1024).includes('%PDF-'),
  wasm: (h) => startsWith(h, [0, 0x61, 0x73, 0x6d]),
  mp3: (h) => startsWith(h, 'ID3') || (h.length >= 2 && h[0] === 0xff && (h[1]! & 0xe0) === 0xe0),
  mp4: (h) => startsWith(h, 'ftyp', 4),
  webm: (h) => startsWith(h, [0x1a, 0x45, 0xdf, 0xa3]),
  ogg: (h) => startsWith(h, 'OggS'),
  wav: (h) => startsWith(h, 'RIFF') && startsWith(h, 'WAVE', 8),
  // An archive kept as a file (never extracted): any of the three formats will do.
  zip: (h) => archiveFormatOf(h) !== null,
  rar: (h) => archiveFormatOf(h) !== null,
  '7z': (h) => archiveFormatOf(h) !== null,
};

/** Native executables: ELF, Mach-O (and fat binaries / Java classes, which share CAFEBABE), PE. */
function isNativeExecutable(h: Buffer): boolean {
  if (startsWith(h, [0x7f, 0x45, 0x4c, 0x46])) return true;
  for (const magic of [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe]) {
    if (h.length >= 4 && h.readUInt32BE(0) === magic) return true;
  }
  if (startsWith(h, 'MZ') && h.length >= 64) {
    const peOffset = h.readUInt32LE(0x3c);
    return startsWith(h, 'PE\0\0', peOffset) || h.subarray(2, 64).includes(0);
  }
  return false;
}

const NO_WORDS = new Uint32Array(0);

/** A control byte that text does not hold (tab, line feed, form feed, carriage return and escape do). */
function isStrayControl(b: number): boolean {
  return b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b;
}

/**
 * Mostly control bytes, or any NUL: not text in any encoding we serve. Read four bytes at a time:
 * a word none of whose bytes is below 0x20 holds no control byte (the "has a byte less than n"
 * test: (x - 0x20202020) & ~x & 0x80808080 is non-zero exactly when one is), and text is mostly
 * such words. Half the time of a loop over every byte for 5,000 heads of 8 KB (docs/benchmarks.md).
 */
export function looksBinary(h: Buffer): boolean {
  if (h.includes(0)) return true;
  const n = h.length;
  let controls = 0;
  let i = 0;
  // Up to the first 4-byte boundary of the underlying memory (or the end), one byte at a time.
  const lead = (4 - (h.byteOffset & 3)) & 3;
  for (; i < Math.min(n, lead); i++) if (isStrayControl(h[i]!)) controls++;
  const words = i === lead ? new Uint32Array(h.buffer, h.byteOffset + i, (n - i) >>> 2) : NO_WORDS;
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    if (((x - 0x20202020) & ~x & 0x80808080) === 0) continue;
    for (let k = i + w * 4, end = k + 4; k < end; k++) if (isStrayControl(h[k]!)) controls++;
  }
  for (i += words.length * 4; i < n; i++) if (isStrayControl(h[i]!)) controls++;
  return controls > n / 10;
}

/** A UTF-16 byte order mark, little or big endian (a UTF-32 LE one starts the same way). */
function isUtf16Bom(h: Buffer): boolean {
  return h.length >= 2 && ((h[0] === 0xff && h[1] === 0xfe) || (h[0] === 0xfe && h[1] === 0xff));
}

function looksLikeSvg(h: Buffer, size: number): boolean {
  const text = h
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .trimStart();
  if (!text.startsWith('<')) return false;
  if (/<svg[\s>]/i.test(text)) return true;
  // A long prologue (comments, DOCTYPE) may push <svg beyond the bytes looked at.
  return size > h.length && /^<[?!]/.test(text);
}

/**
 * Why the first bytes of a file contradict its extension, or null when they don't. Executables are
 * refused whatever the extension, download-only files included; a "#!" line is accepted only in
 * JavaScript (where it is valid syntax and the browser ignores it), since every other type has no
 * use for one.
 */
function contentRefusal(
  ext: string,
  head: Buffer,
  size: number,
  downloadOnly: boolean,
): 'executable' | 'typeMismatch' | 'utf16Text' | null {
  if (isNativeExecutable(head)) return 'executable';
  if (startsWith(head, '#!') && ext !== 'js' && ext !== 'mjs') return 'executable';
  // Nothing to mismatch: an empty file (VitePress's vp-icons.css) is kept as the site shipped it.
  if (downloadOnly || size === 0) return null;
  // Windows Notepad's "Unicode": browsers read it, but the content check reads UTF-8 (and GBK's
  // ASCII), so a page in UTF-16 would pass it unread. Said as what it is, not as a wrong type
  // (docs/decisions/uploads.md "Text in UTF-16").
  if (TEXT_EXTENSIONS.has(ext) && isUtf16Bom(head)) return 'utf16Text';
  const signature = BINARY_SIGNATURES[ext];
  const ok = signature
    ? signature(head)
    : !TEXT_EXTENSIONS.has(ext) || (!looksBinary(head) && (ext !== 'svg' || looksLikeSvg(head, size)));
  return ok ? null : 'typeMismatch';
}

/** Throws when the first bytes of a file contradict its extension (contentRefusal); `name` as shown. */
export function checkContent(
  name: string,
  ext: string,
  head: Buffer,
  size: number,
  downloadOnly = false,
): void {
  const reason = contentRefusal(ext, head, size, downloadOnly);
  if (reason) throw new Refusal(reason, { name });
}

/** Checks a file's content against its extension; returns it as accepted. */
export function acceptContent(
  path: string,
  tempFile: string,
  facts: ContentFacts,
  downloadOnly: boolean,
): CheckedFile {
  const reason = contentRefusal(extensionOfPath(path), facts.head, facts.size, downloadOnly);
  // Made fit to show only for a refusal.
  if (reason) throw new Refusal(reason, { name: displayName(path) });
  return checkedFile(path, tempFile, facts, downloadOnly);
}

function checkedFile(
  path: string,
  tempFile: string,
  facts: ContentFacts,
  downloadOnly: boolean,
): CheckedFile {
  return { path, tempFile, size: facts.size, sha256: facts.sha256, utf8: facts.utf8, downloadOnly };
}

/**
 * Facts accepted before, with the extension and download-only flag they were accepted under. A
 * digest deploy's contents come from the deploy service's facts cache, the same objects from one
 * deploy to the next, and a verdict depends only on the head, the size, the extension and that
 * flag: a redeploy of 5,000 unchanged files looked at 5,000 heads again (20-30 ms).
 */
const acceptedHeld = new WeakMap<ContentFacts, string>();

/** acceptContent for contents the blob store holds (a digest deploy), remembering each verdict. */
export function acceptHeldContent(path: string, facts: ContentFacts, downloadOnly: boolean): CheckedFile {
  const as = `${extensionOfPath(path)}/${downloadOnly ? 1 : 0}`;
  if (acceptedHeld.get(facts) === as) return checkedFile(path, '', facts, downloadOnly);
  const checked = acceptContent(path, '', facts, downloadOnly);
  acceptedHeld.set(facts, as);
  return checked;
}
