/**
 * Zip extraction with yauzl, inside the extraction worker: read the central directory (entry count
 * first), refuse what is unsafe, plan, then stream each file to disk while hashing it, and finally
 * compare the disk with the plan. Names are decoded here rather than by yauzl so that zips made
 * on Chinese Windows (GBK names without the UTF-8 flag) keep their names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import { crc32 } from 'node:zlib';
import type { UploadLimits } from '@sitehall/contracts';
import iconv from 'iconv-lite';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { acceptContent, type CheckedFile, isTextExtension } from './content.js';
import { ContentDigest } from './digest.js';
import { verifyExtractedTree } from './extracted-tree.js';
import { displayName, extensionOfPath } from './names.js';
import { type ListedEntry, planUpload } from './plan.js';
import { Refusal } from './refusal.js';

const FLAG_ENCRYPTED = 0x1;
const FLAG_STRONG_ENCRYPTION = 0x40;
const FLAG_UTF8 = 0x800;
const METHOD_STORED = 0;
const METHOD_DEFLATED = 8;
const METHOD_AES = 99;
const INFO_ZIP_UNICODE_PATH = 0x7075;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const DOS_DIRECTORY = 0x10;
const DOS_DEVICE = 0x40;
const DOS_REPARSE_POINT = 0x400;
const LOCAL_HEADER_BYTES = 30;

interface ZipListedEntry extends ListedEntry {
  entry: Entry;
}

export async function extractZip(
  archivePath: string,
  outDir: string,
  limits: UploadLimits,
): Promise<CheckedFile[]> {
  const zip = await openZip(archivePath);
  try {
    // The count is in the end-of-central-directory record: refuse a bomb before reading a record.
    if (zip.entryCount > limits.maxArchiveEntries) {
      throw new Refusal('tooManyEntries', { n: limits.maxArchiveEntries });
    }
    if (zip.entryCount === 0) throw new Refusal('emptyArchive');
    const entries = await listEntries(zip);
    checkNoOverlap(entries.map((e) => e.entry));
    const plan = planUpload(entries, limits, 'archive');

    const files: CheckedFile[] = [];
    const madeDirs = new Set<string>();
    let written = 0;
    for (const planned of plan.files) {
      const { entry } = entries[planned.index]!;
      const dest = path.join(outDir, ...planned.name.split('/'));
      const dir = path.dirname(dest);
      if (!madeDirs.has(dir)) {
        await fs.promises.mkdir(dir, { recursive: true });
        madeDirs.add(dir);
      }
      const digest = new ContentDigest(isTextExtension(extensionOfPath(planned.path)));
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          written += chunk.length;
          if (written > limits.maxArchiveUncompressedBytes) {
            done(new Refusal('tooLargeUncompressed', { bytes: limits.maxArchiveUncompressedBytes }));
            return;
          }
          digest.update(chunk);
          done(null, chunk);
        },
      });
      try {
        const source = await zip.openReadStreamPromise(entry);
        await pipeline(source, meter, fs.createWriteStream(dest, { flags: 'wx' }));
      } catch (err) {
        throw asRefusal(err);
      }
      const facts = digest.finish();
      if (facts.crc32 !== entry.crc32) throw new Refusal('corrupt');
      files.push(acceptContent(planned.path, dest, facts));
    }
    await verifyExtractedTree(outDir, plan.files);
    return files;
  } finally {
    zip.close();
  }
}

async function openZip(archivePath: string): Promise<ZipFile> {
  try {
    return await yauzl.openPromise(archivePath, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch {
    // The magic bytes said zip, so a missing or broken end record means truncated or damaged.
    throw new Refusal('corrupt');
  }
}

function listEntries(zip: ZipFile): Promise<ZipListedEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ZipListedEntry[] = [];
    zip.on('error', (err) => reject(asRefusal(err)));
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: Entry) => {
      try {
        entries.push(describeEntry(entry));
        zip.readEntry();
      } catch (err) {
        reject(err);
      }
    });
    zip.readEntry();
  });
}

/** Decodes the name and refuses encrypted, unsupported and non-regular entries. */
function describeEntry(entry: Entry): ZipListedEntry {
  const name = decodeName(entry);
  const shown = displayName(name);
  const mode = entry.externalFileAttributes >>> 16;
  const type = mode & S_IFMT;
  const dos = entry.externalFileAttributes & 0xffff;
  const special = type !== 0 && type !== S_IFREG && type !== S_IFDIR;
  if (special || dos & (DOS_REPARSE_POINT | DOS_DEVICE)) throw new Refusal('notRegularFile', { name: shown });
  const isDir = name.endsWith('/') || type === S_IFDIR || (type === 0 && (dos & DOS_DIRECTORY) !== 0);
  if (isDir) {
    if (entry.uncompressedSize !== 0) throw new Refusal('corrupt');
    return { name, isDir, size: 0, entry };
  }
  if (
    entry.generalPurposeBitFlag & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) ||
    entry.compressionMethod === METHOD_AES
  ) {
    throw new Refusal('encrypted');
  }
  if (entry.compressionMethod !== METHOD_STORED && entry.compressionMethod !== METHOD_DEFLATED) {
    throw new Refusal('unsupportedMethod');
  }
  return { name, isDir, size: entry.uncompressedSize, entry };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The UTF-8 flag (bit 11) or an Info-ZIP Unicode Path field whose CRC matches means UTF-8.
 * Otherwise: plain ASCII as is; valid UTF-8 as UTF-8 (many tools forget the flag); else GBK, the
 * code page of zips made on Chinese Windows; CP437 (the spec's default) only when GBK cannot
 * decode it. A name that decodes to nothing sensible keeps U+FFFD and is refused as a bad name.
 */
function decodeName(entry: Entry): string {
  const raw = entry.fileNameRaw;
  const unicodePath = entry.extraFields.find((f) => f.id === INFO_ZIP_UNICODE_PATH);
  if (unicodePath && unicodePath.data.length > 5 && unicodePath.data[0] === 1) {
    if (unicodePath.data.readUInt32LE(1) === crc32(raw)) {
      return decodeUtf8(unicodePath.data.subarray(5)) ?? '\ufffd';
    }
  }
  if (entry.generalPurposeBitFlag & FLAG_UTF8) return decodeUtf8(raw) ?? '\ufffd';
  if (raw.every((b) => b < 0x80)) return raw.toString('latin1');
  const utf8 = decodeUtf8(raw);
  if (utf8 !== null) return utf8;
  const gbk = iconv.decode(raw, 'gbk');
  return gbk.includes('\ufffd') ? iconv.decode(raw, 'cp437') : gbk;
}

/**
 * Each entry's local header and data must end before the next one starts. Entries sharing or
 * overlapping their data are how "overlapping" zip bombs multiply a small file into a huge one.
 * The central directory's name length stands in for the local header's (the local extra field can
 * only make the real span longer).
 */
function checkNoOverlap(entries: Entry[]): void {
  const sorted = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const end =
      prev.relativeOffsetOfLocalHeader + LOCAL_HEADER_BYTES + prev.fileNameLength + prev.compressedSize;
    if (end > sorted[i]!.relativeOffsetOfLocalHeader) throw new Refusal('overlapping');
  }
}

/** yauzl and zlib report problems as plain errors; map them to what the user is told. */
function asRefusal(err: unknown): unknown {
  if (err instanceof Refusal) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown }).code;
  // File system trouble on our side (disk full, permissions) is not the archive's fault.
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return err;
  if (/too many bytes|not enough bytes|size mismatch/i.test(message)) return new Refusal('sizeMismatch');
  if (/encrypt/i.test(message)) return new Refusal('encrypted');
  if (/compression method/i.test(message)) return new Refusal('unsupportedMethod');
  return new Refusal('corrupt');
}
