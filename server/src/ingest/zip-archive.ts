/**
 * Zip extraction with yauzl, inside the extraction worker: read the central directory (entry count
 * first), refuse what is unsafe, plan, then stream each file to disk while hashing it, and finally
 * compare the disk with the plan. Names are decoded here rather than by yauzl so that zips made
 * on Chinese or Japanese Windows (GBK, Big5 or Shift_JIS names without the UTF-8 flag) keep their
 * names.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import {
  crc32,
  createInflateRaw,
  type InflateRaw,
  inflateRawSync,
  constants as zlibConstants,
} from 'node:zlib';
import type iconvLite from 'iconv-lite';
import type { Entry, ZipFile } from 'yauzl';
import { acceptContent, type CheckedFile, isTextExtension } from './content.js';
import { ContentDigest, type ContentFacts, HEAD_BYTES, IO_CHUNK_BYTES } from './digest.js';
import { verifyExtractedTree } from './extracted-tree.js';
import { displayName, extensionOfPath, withoutLeadingDot } from './names.js';
import { ParentFolders, writeAll } from './output-folder.js';
import { type ListedEntry, type Plan, planUpload } from './plan.js';
import { type IngestLimits, Refusal, RefusedNames } from './refusal.js';

/**
 * yauzl, required rather than imported: an `import` of a CommonJS package from an ES module has
 * Node read its whole source with its export lexer first, whose optimisation alone cost each new
 * extraction worker 40-60 ms of CPU (docs/benchmarks.md "A worker's first job").
 */
const yauzl = createRequire(import.meta.url)('yauzl') as typeof import('yauzl');

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
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;

interface ZipListedEntry extends ListedEntry {
  entry: Entry;
}

/**
 * `held`: contents the uploading account's project holds already (ingest/index.ts "IngestInput"):
 * an entry whose bytes hash to one of them is checked like any other but not written (it is the
 * store's already; its CheckedFile says `held` and has no temp file). `ask`: which of some other
 * contents the store holds (any account's, leased for this upload by the caller): small entries
 * are read and hashed in batches (at most BATCH_FILES entries, BATCH_BYTES of data), one question
 * each, and only those the store lacks are written.
 */
export async function extractZip(
  archivePath: string,
  outDir: string,
  limits: IngestLimits,
  held: ReadonlySet<string> = new Set(),
  ask?: (hashes: string[]) => Promise<ReadonlySet<string>>,
): Promise<CheckedFile[]> {
  const zip = await openZip(archivePath);
  let plan: Plan;
  let entries: ZipListedEntry[];
  try {
    // The count is in the end-of-central-directory record: refuse a bomb before reading a record.
    if (zip.entryCount > limits.maxArchiveEntries) {
      throw new Refusal('tooManyEntries', { n: limits.maxArchiveEntries });
    }
    entries = await listEntries(zip);
    if (moreRecordsFollow(archivePath, zip)) throw new Refusal('entryCountMismatch');
    if (zip.entryCount === 0) throw new Refusal('emptyArchive');
    checkNoOverlap(entries.map((e) => e.entry));
    plan = planUpload(entries, limits, 'archive');
  } finally {
    zip.close();
  }

  const reader = new EntryReader(archivePath, limits);
  const files: CheckedFile[] = [];
  /** Entries not written: their contents are held already. */
  const skipped = new Set<string>();
  const executables = new RefusedNames('executable');
  const folders = new ParentFolders();
  const accept = (planned: Plan['files'][number], dest: string, facts: ContentFacts, written: boolean) => {
    if (!written) skipped.add(planned.name);
    const checked = executables.check(() =>
      acceptContent(planned.path, written ? dest : '', facts, planned.downloadOnly),
    );
    if (checked) files.push(written ? checked : { ...checked, held: true });
  };
  /** Small entries read and hashed, waiting for the store's answer (in the plan's order). */
  let waiting: { planned: Plan['files'][number]; dest: string; facts: ContentFacts; data: Buffer }[] = [];
  let waitingBytes = 0;
  const settleWaiting = async () => {
    if (waiting.length === 0) return;
    const unknown = [...new Set(waiting.map((w) => w.facts.sha256).filter((h) => !held.has(h)))];
    const stored = ask && unknown.length > 0 ? await ask(unknown) : new Set<string>();
    for (const w of waiting) {
      const isHeld = held.has(w.facts.sha256) || stored.has(w.facts.sha256);
      if (!isHeld) writeNew(w.dest, w.data, folders);
      accept(w.planned, w.dest, w.facts, !isHeld);
    }
    waiting = [];
    waitingBytes = 0;
  };
  try {
    for (const planned of plan.files) {
      const { entry } = entries[planned.index]!;
      const dest = path.join(outDir, ...planned.name.split('/'));
      const text = isTextExtension(extensionOfPath(planned.path));
      if (held.size > 0 || ask) {
        const small = reader.readSmall(entry, text);
        if (small) {
          if (small.facts.crc32 !== entry.crc32) throw new Refusal('corrupt');
          waiting.push({ planned, dest, ...small });
          waitingBytes += small.data.length;
          // Without a question to ask, nothing waits: `held` decides at once.
          if (!ask || waiting.length >= BATCH_FILES || waitingBytes >= BATCH_BYTES) await settleWaiting();
          continue;
        }
        await settleWaiting();
      }
      const facts = await reader.extract(entry, dest, text, folders);
      if (facts.crc32 !== entry.crc32) throw new Refusal('corrupt');
      accept(planned, dest, facts, true);
    }
    await settleWaiting();
  } finally {
    reader.close();
  }
  executables.throwIfAny();
  // Each file's size was checked as it was written (facts.size against the entry's).
  verifyExtractedTree(
    outDir,
    plan.files.filter((f) => !skipped.has(f.name)).map((f) => f.name),
  );
  return files;
}

/** A batch of small entries asked about at once: the files, and their inflated bytes. */
const BATCH_FILES = 500;
const BATCH_BYTES = 8 * 1024 * 1024;

/** A new file at `dest` (its folder made first) holding `data`. */
function writeNew(dest: string, data: Buffer, folders: ParentFolders): void {
  folders.make(dest);
  const out = fs.openSync(dest, 'wx', 0o644);
  try {
    writeAll(out, data);
  } finally {
    fs.closeSync(out);
  }
}

/**
 * Entries whose inflated data is at most this big (and whose compressed data fits the read buffer)
 * are inflated in one call.
 */
const WHOLE_ENTRY_BYTES = 4 * 1024 * 1024;

/** An entry inflated (or copied) in one piece: small, its compressed data within one read. */
const isWhole = (entry: Entry) =>
  entry.compressedSize <= IO_CHUNK_BYTES && entry.uncompressedSize <= WHOLE_ENTRY_BYTES;

/** What of a zlib object's internals OneInflater uses (Node's lib/zlib.js: not public API). */
interface ZlibInternals {
  _handle: {
    writeSync(
      flush: number,
      input: Buffer,
      inOff: number,
      inLen: number,
      out: Buffer,
      outOff: number,
      outLen: number,
    ): void;
    reset(): void;
  } | null;
  /** [output space left, input left] after the last write. */
  _writeState: Uint32Array;
}

/**
 * One raw-inflate state for all of an archive's small entries, reset between them:
 * `inflateRawSync` makes a zlib object and handle (its inflate state and 32 KB window, allocated
 * outside the heap) and a 16 KB output for every call and closes them after it, which for 5,000
 * small entries cost about as much as the inflating itself, plus the collections it caused
 * (docs/benchmarks.md "One inflater per archive"). Node's zlib object keeps its native handle
 * (`writeSync`, `reset`) and its counters; with those missing (a Node that changed them), each
 * entry is inflated by `inflateRawSync` as before.
 */
export class OneInflater {
  /** Whether this Node's zlib objects have what the reuse needs (checked once). */
  static readonly available: boolean = (() => {
    const z = createInflateRaw() as unknown as Partial<ZlibInternals> & InflateRaw;
    const ok =
      typeof z._handle?.writeSync === 'function' &&
      typeof z._handle.reset === 'function' &&
      z._writeState instanceof Uint32Array;
    z.close();
    return ok;
  })();

  #zlib: (InflateRaw & ZlibInternals) | null = null;
  /** Output of entries written at once (the write path uses it before the next entry). */
  #out: Buffer | null = null;

  /**
   * `compressed` inflated, never past `declared` bytes. `keep`: the bytes outlive the next call
   * (a fresh buffer); otherwise they are a view of the shared output, valid until the next call.
   * Throws 'sizeMismatch' for more than declared and 'corrupt' for damaged or cut data.
   */
  inflate(compressed: Buffer, declared: number, keep: boolean): Buffer {
    if (!OneInflater.available) return inflateAlone(compressed, declared);
    const space = declared + 1;
    const out = keep || space > IO_CHUNK_BYTES + 1 ? Buffer.allocUnsafe(space) : this.#sharedOut();
    if (!this.#zlib) {
      this.#zlib = createInflateRaw() as InflateRaw & ZlibInternals;
      // Errors are read from the object as the write returns; the event comes after.
      this.#zlib.on('error', () => {});
    }
    const zlib = this.#zlib;
    zlib._handle?.writeSync(zlibConstants.Z_FINISH, compressed, 0, compressed.length, out, 0, space);
    // An error (bad data, or the input ended before the stream did) destroys the object at once.
    if (zlib.destroyed || !zlib._handle) {
      this.#zlib = null;
      throw new Refusal('corrupt');
    }
    const produced = space - (zlib._writeState[0] ?? 0);
    zlib._handle.reset();
    // Room for one byte more than declared, so a full output means more than declared.
    if (produced === space) throw new Refusal('sizeMismatch');
    return out.subarray(0, produced);
  }

  /** Made at the first entry that uses it (entries kept in memory never do). */
  #sharedOut(): Buffer {
    if (!this.#out) this.#out = Buffer.allocUnsafeSlow(IO_CHUNK_BYTES + 1);
    return this.#out;
  }

  close(): void {
    this.#zlib?.close();
    this.#zlib = null;
  }
}

/** `compressed` inflated in one call of its own, never past `declared` bytes. */
function inflateAlone(compressed: Buffer, declared: number): Buffer {
  try {
    // More output than declared stops the inflation there: a bomb never gets its memory.
    return inflateRawSync(compressed, { maxOutputLength: Math.max(1, declared) });
  } catch (err) {
    throw (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
      ? new Refusal('sizeMismatch')
      : new Refusal('corrupt');
  }
}

/**
 * Reads entries' data straight from the archive with synchronous I/O (this runs in the worker):
 * yauzl's streams cost several thread-pool round trips per entry, which dominated archives of
 * many small files. Small entries are inflated in one call, capped at their declared size; large
 * ones are copied (stored) or inflated as a stream (deflated) in IO_CHUNK_BYTES pieces, so memory
 * stays flat whatever their size. An entry's real size must equal the declared one.
 */
class EntryReader {
  readonly #fd: number;
  readonly #archiveSize: number;
  readonly #limits: IngestLimits;
  readonly #buffer = Buffer.allocUnsafe(IO_CHUNK_BYTES);
  readonly #inflater = new OneInflater();
  /** The head of the entry last extracted (its facts' head is a view of it). */
  readonly #head = Buffer.allocUnsafeSlow(HEAD_BYTES);
  #written = 0;

  constructor(archivePath: string, limits: IngestLimits) {
    this.#fd = fs.openSync(archivePath, 'r');
    this.#archiveSize = fs.fstatSync(this.#fd).size;
    this.#limits = limits;
  }

  close(): void {
    this.#inflater.close();
    fs.closeSync(this.#fd);
  }

  /**
   * A small entry's facts and bytes, read and hashed in memory with nothing written (the caller
   * decides whether to write them); undefined for an entry too large for that, which `extract`
   * writes as it streams. The bytes are the entry's own, not a view of the shared read buffer.
   */
  readSmall(entry: Entry, checkUtf8: boolean): { facts: ContentFacts; data: Buffer } | undefined {
    if (!isWhole(entry)) return undefined;
    const head = this.#readLocal(entry);
    const compressed = this.#compressed(entry, head, this.#dataStart(entry, head));
    if (compressed.length < entry.compressedSize) throw new Refusal('corrupt');
    let data: Buffer;
    if (entry.compressionMethod === METHOD_STORED) {
      if (entry.compressedSize !== entry.uncompressedSize) throw new Refusal('sizeMismatch');
      data = Buffer.from(compressed);
    } else {
      data = this.#inflater.inflate(compressed, entry.uncompressedSize, true);
    }
    this.#count(data.length);
    const digest = new ContentDigest({ utf8: checkUtf8, crc32: true, whole: data });
    digest.update(data);
    const facts = digest.finish();
    if (facts.size !== entry.uncompressedSize) throw new Refusal('sizeMismatch');
    return { facts, data };
  }

  /**
   * One entry's bytes written to `dest` (`folders` makes its folder first), and their facts, whose
   * head is valid until the next call.
   */
  async extract(
    entry: Entry,
    dest: string,
    checkUtf8: boolean,
    folders: ParentFolders,
  ): Promise<ContentFacts> {
    // The head is checked as soon as this returns (extractZip's `accept`), before the next entry.
    const digest = new ContentDigest({ utf8: checkUtf8, crc32: true, headInto: this.#head });
    // One read for the local header and, for a small entry, its data too.
    const head = this.#readLocal(entry);
    const start = this.#dataStart(entry, head);
    folders.make(dest);
    const out = fs.openSync(dest, 'wx', 0o644);
    try {
      if (entry.compressionMethod === METHOD_STORED) {
        if (entry.compressedSize !== entry.uncompressedSize) throw new Refusal('sizeMismatch');
        this.#copyStored(start, entry.compressedSize, out, digest);
      } else if (isWhole(entry)) {
        this.#inflateWhole(this.#compressed(entry, head, start), entry, out, digest);
      } else {
        await this.#inflateStream(start, entry, out, digest);
      }
    } finally {
      fs.closeSync(out);
    }
    const facts = digest.finish();
    if (facts.size !== entry.uncompressedSize) throw new Refusal('sizeMismatch');
    return facts;
  }

  /**
   * A whole entry's compressed data, from `head` (its local header's read) when that holds it,
   * else read in one piece of the shared buffer (so at most IO_CHUNK_BYTES): valid until the next
   * read.
   */
  #compressed(entry: Entry, head: Buffer, start: number): Buffer {
    const from = start - entry.relativeOffsetOfLocalHeader;
    return from + entry.compressedSize <= head.length
      ? head.subarray(from, from + entry.compressedSize)
      : this.#read(start, entry.compressedSize);
  }

  /**
   * The local header, and as much after it as the entry's name, extra field (its central
   * directory lengths, plus slack for a longer local one) and data are likely to need.
   */
  #readLocal(entry: Entry): Buffer {
    const guess =
      LOCAL_HEADER_BYTES + entry.fileNameLength + entry.extraFieldLength + 256 + entry.compressedSize;
    return this.#read(entry.relativeOffsetOfLocalHeader, guess);
  }

  /** The local header is checked the way yauzl does: signature, and data within the file. */
  #dataStart(entry: Entry, header: Buffer): number {
    if (header.length < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
      throw new Refusal('corrupt');
    }
    const start =
      entry.relativeOffsetOfLocalHeader +
      LOCAL_HEADER_BYTES +
      header.readUInt16LE(26) +
      header.readUInt16LE(28);
    if (start + entry.compressedSize > this.#archiveSize) throw new Refusal('corrupt');
    return start;
  }

  /** Up to IO_CHUNK_BYTES at `position`, in the shared buffer (valid until the next read). */
  #read(position: number, length: number): Buffer {
    const n = fs.readSync(this.#fd, this.#buffer, 0, Math.min(length, this.#buffer.length), position);
    return this.#buffer.subarray(0, n);
  }

  /** Counts extracted bytes against the archive's uncompressed limit (written or not). */
  #count(n: number): void {
    this.#written += n;
    if (this.#written > this.#limits.maxArchiveUncompressedBytes) {
      throw new Refusal('tooLargeUncompressed', { bytes: this.#limits.maxArchiveUncompressedBytes });
    }
  }

  #write(out: number, chunk: Buffer, digest: ContentDigest): void {
    this.#count(chunk.length);
    digest.update(chunk);
    writeAll(out, chunk);
  }

  #copyStored(start: number, size: number, out: number, digest: ContentDigest): void {
    for (let done = 0; done < size; ) {
      const chunk = this.#read(start + done, size - done);
      if (chunk.length === 0) throw new Refusal('corrupt');
      this.#write(out, chunk, digest);
      done += chunk.length;
    }
  }

  #inflateWhole(compressed: Buffer, entry: Entry, out: number, digest: ContentDigest): void {
    if (compressed.length < entry.compressedSize) throw new Refusal('corrupt');
    this.#write(out, this.#inflater.inflate(compressed, entry.uncompressedSize, false), digest);
  }

  async #inflateStream(start: number, entry: Entry, out: number, digest: ContentDigest): Promise<void> {
    const declared = entry.uncompressedSize;
    let produced = 0;
    const inflate = createInflateRaw({ chunkSize: IO_CHUNK_BYTES });
    const done = new Promise<void>((resolve, reject) => {
      inflate.on('data', (chunk: Buffer) => {
        try {
          produced += chunk.length;
          if (produced > declared) throw new Refusal('sizeMismatch');
          this.#write(out, chunk, digest);
        } catch (err) {
          inflate.destroy(err as Error);
        }
      });
      inflate.on('end', resolve);
      inflate.on('error', (err) => reject(err instanceof Refusal ? err : asRefusal(err)));
    });
    // Settled below; until then a refusal from the data handler must not count as unhandled.
    done.catch(() => undefined);
    try {
      // Compressed input in IO_CHUNK_BYTES pieces, each fed once zlib has taken the previous one.
      for (let fed = 0; fed < entry.compressedSize && !inflate.destroyed; ) {
        const chunk = Buffer.from(this.#read(start + fed, entry.compressedSize - fed));
        if (chunk.length === 0) throw new Refusal('corrupt');
        fed += chunk.length;
        if (!inflate.write(chunk)) await once(inflate, 'drain').catch(() => undefined);
      }
    } catch (err) {
      inflate.destroy();
      throw err;
    }
    if (!inflate.destroyed) inflate.end();
    await done;
  }
}

async function openZip(archivePath: string): Promise<ZipFile> {
  const reader = new WindowReader(fs.openSync(archivePath, 'r'));
  try {
    return await yauzl.fromRandomAccessReaderPromise(reader, fs.fstatSync(reader.fd).size, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch {
    reader.close(() => undefined);
    // The magic bytes said zip, so a missing or broken end record means truncated or damaged.
    throw new Refusal('corrupt');
  }
}

/**
 * yauzl's view of the archive, read with synchronous calls through a window of IO_CHUNK_BYTES
 * (this runs in the extraction worker, as EntryReader does). yauzl reads the central directory
 * record by record, two reads each; its own file reader made every read a round trip through
 * libuv's thread pool, 10,000 of them for a 5,000-file zip, each waking the worker
 * (docs/benchmarks.md "Ingest in CPU time"). Answers come as microtasks: no turn of the event
 * loop, and no recursion however many records follow one another.
 */
class WindowReader extends yauzl.RandomAccessReader {
  readonly #window = Buffer.allocUnsafeSlow(IO_CHUNK_BYTES);
  #start = 0;
  #length = 0;
  #open = true;

  constructor(readonly fd: number) {
    super();
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    let bytesRead: number;
    try {
      bytesRead = this.#copy(buffer, offset, length, position);
    } catch (err) {
      queueMicrotask(() => callback(err as Error));
      return;
    }
    queueMicrotask(() => callback(null, bytesRead));
  }

  /** Bytes from `position` into `buffer`, the window moved there first when it does not hold them. */
  #copy(buffer: Buffer, offset: number, length: number, position: number): number {
    if (length > this.#window.length) return fs.readSync(this.fd, buffer, offset, length, position);
    if (position < this.#start || position + length > this.#start + this.#length) {
      this.#start = position;
      this.#length = fs.readSync(this.fd, this.#window, 0, this.#window.length, position);
    }
    const available = Math.max(0, Math.min(length, this.#start + this.#length - position));
    this.#window.copy(buffer, offset, position - this.#start, position - this.#start + available);
    return available;
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return fs.createReadStream('', { fd: this.fd, start, end: end - 1, autoClose: false });
  }

  override close(callback: (err: Error | null) => void): void {
    if (!this.#open) {
      queueMicrotask(() => callback(null));
      return;
    }
    this.#open = false;
    fs.close(this.fd, callback);
  }
}

/**
 * The central directory's entries, described once all are read: the code page of names without
 * the UTF-8 flag is the archive's (one tool wrote them all), chosen from every such name
 * (legacyCodePage).
 */
function listEntries(zip: ZipFile): Promise<ZipListedEntry[]> {
  return new Promise((resolve, reject) => {
    const read: Entry[] = [];
    zip.on('error', (err) => reject(asRefusal(err)));
    zip.on('end', () => {
      try {
        const codePage = legacyCodePage(read);
        const entries: ZipListedEntry[] = [];
        for (const entry of read) {
          const described = describeEntry(entry, codePage);
          if (described) entries.push(described);
        }
        resolve(entries);
      } catch (err) {
        reject(err);
      }
    });
    zip.on('entry', (entry: Entry) => {
      read.push(entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
}

/**
 * yauzl reads exactly as many central directory records as the end record counts. Another record
 * right after the last one read means the count is lower than the directory: other tools would
 * extract the entries it hides, so the archive says two things and is refused, not half-taken.
 */
function moreRecordsFollow(archivePath: string, zip: ZipFile): boolean {
  // The typings call it a boolean; it is the offset of the next record to read.
  const cursor = zip.readEntryCursor as unknown as number;
  const fd = fs.openSync(archivePath, 'r');
  try {
    const bytes = Buffer.alloc(4);
    return fs.readSync(fd, bytes, 0, 4, cursor) === 4 && bytes.readUInt32LE(0) === CENTRAL_HEADER_SIGNATURE;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Decodes the name and refuses encrypted, unsupported and non-regular entries. Null for the
 * archive's root folder, listed as './' (withoutLeadingDot): no entry of the site.
 */
function describeEntry(entry: Entry, codePage: LegacyCodePage): ZipListedEntry | null {
  const listed = decodeName(entry, codePage);
  const shown = displayName(listed);
  const mode = entry.externalFileAttributes >>> 16;
  const type = mode & S_IFMT;
  const dos = entry.externalFileAttributes & 0xffff;
  const special = type !== 0 && type !== S_IFREG && type !== S_IFDIR;
  if (special || dos & (DOS_REPARSE_POINT | DOS_DEVICE)) throw new Refusal('notRegularFile', { name: shown });
  const isDir = listed.endsWith('/') || type === S_IFDIR || (type === 0 && (dos & DOS_DIRECTORY) !== 0);
  const name = withoutLeadingDot(listed, isDir);
  if (isDir) {
    if (entry.uncompressedSize !== 0) throw new Refusal('corrupt');
    if (name === '' && listed !== '') return null;
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

/**
 * iconv-lite, loaded the first time a name is neither ASCII nor UTF-8: its tables cost each new
 * extraction worker ≈10 ms of CPU to load (docs/benchmarks.md "A worker's first job"), and most
 * zips have no such name.
 */
let iconvLoaded: typeof iconvLite | undefined;
const iconv = () => (iconvLoaded ??= createRequire(import.meta.url)('iconv-lite') as typeof iconvLite);

function decodeUtf8(bytes: Buffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The code page of a zip's names that are neither flagged UTF-8 nor valid UTF-8. */
type LegacyCodePage = 'gbk' | 'shift_jis' | 'big5';

/** A name that says nothing of its code page: flagged or valid UTF-8, or plain ASCII. */
function legacyName(entry: Entry): Buffer | null {
  const raw = entry.fileNameRaw;
  if (entry.generalPurposeBitFlag & FLAG_UTF8) return null;
  if (entry.extraFields.some((f) => f.id === INFO_ZIP_UNICODE_PATH)) return null;
  if (raw.every((b) => b < 0x80)) return null;
  return decodeUtf8(raw) === null ? raw : null;
}

/**
 * GBK, the code page of zips made on Chinese Windows, unless the names read as Japanese Windows
 * writes them (Shift_JIS): then most of their two-byte characters, read as GBK, fall outside
 * GB2312, the characters Chinese names are made of (kana and most kanji in Shift_JIS begin with
 * 0x81–0x9F, which GBK gives to rare characters), and every name reads as Shift_JIS without a
 * byte it cannot map. Names in Chinese with a rare character or two stay GBK.
 *
 * Big5 (Traditional Chinese Windows) fills the same rows as GB2312, so that count does not tell
 * it apart: 首頁 is AD BA AD B6, both GB2312-shaped. What does is that GBK reads many common
 * Big5 characters (首, 頁, 們, 一, 人…) as its user-defined characters, private-use code points
 * that no name typed on Chinese Windows has. So Big5 when some name read as GBK has one, and
 * every name is made of Big5 pairs only and reads as Big5 without a byte it cannot map. Shift_JIS
 * is decided first, as before; an archive of real GBK characters has no private-use one and stays
 * GBK, rare or traditional characters included.
 * docs/decisions/uploads.md "Names in zips made on Windows".
 */
function legacyCodePage(entries: readonly Entry[]): LegacyCodePage {
  const names = entries.map(legacyName).filter((n): n is Buffer => n !== null);
  let pairs = 0;
  let gb2312 = 0;
  for (const raw of names) {
    for (let i = 0; i < raw.length; i++) {
      const lead = raw[i]!;
      if (lead < 0x80) continue;
      const trail = raw[i + 1] ?? 0;
      pairs++;
      if (lead >= 0xa1 && lead <= 0xf7 && trail >= 0xa1 && trail <= 0xfe) gb2312++;
      i++;
    }
  }
  if (pairs === 0) return 'gbk';
  if (gb2312 * 2 < pairs && names.every((raw) => readsAs(raw, 'shift_jis'))) return 'shift_jis';
  const big5 =
    names.every(big5Shaped) &&
    names.some((raw) => PRIVATE_USE.test(iconv().decode(raw, 'gbk'))) &&
    names.every((raw) => readsAs(raw, 'big5'));
  return big5 ? 'big5' : 'gbk';
}

/**
 * How iconv-lite reads GBK's user-defined areas (0xAAA1–0xAFFE, 0xF8A1–0xFEFE, 0xA140–0xA7A0) and
 * the unassigned codes among its symbols.
 */
const PRIVATE_USE = /[\ue000-\uf8ff]/;

function readsAs(raw: Buffer, codePage: LegacyCodePage): boolean {
  return !iconv().decode(raw, codePage).includes('\ufffd');
}

/**
 * Every byte above ASCII starts a pair Big5 (code page 950) can hold: lead 0xA1–0xF9, trail
 * 0x40–0x7E or 0xA1–0xFE. GBK's rare characters at 0x81–0xA0 or with a trail of 0x80–0xA0, and
 * a lone last byte, are not Big5; Hong Kong's HKSCS leads (0x87–0xA0, 0xFA–0xFE) are left out too.
 */
function big5Shaped(raw: Buffer): boolean {
  for (let i = 0; i < raw.length; i++) {
    const lead = raw[i]!;
    if (lead < 0x80) continue;
    const trail = raw[i + 1] ?? 0;
    if (lead < 0xa1 || lead > 0xf9) return false;
    if (!((trail >= 0x40 && trail <= 0x7e) || (trail >= 0xa1 && trail <= 0xfe))) return false;
    i++;
  }
  return true;
}

/**
 * The UTF-8 flag (bit 11) or an Info-ZIP Unicode Path field whose CRC matches means UTF-8.
 * Otherwise: plain ASCII as is; valid UTF-8 as UTF-8 (many tools forget the flag); else the
 * archive's legacy code page (legacyCodePage: GBK, Shift_JIS for a zip made on Japanese Windows,
 * Big5 for one made on Traditional Chinese Windows); CP437 (the spec's default) only when that
 * cannot decode it. A name that decodes to nothing sensible keeps U+FFFD and is refused as a bad
 * name.
 */
function decodeName(entry: Entry, codePage: LegacyCodePage): string {
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
  const legacy = iconv().decode(raw, codePage);
  return legacy.includes('\ufffd') ? iconv().decode(raw, 'cp437') : legacy;
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
