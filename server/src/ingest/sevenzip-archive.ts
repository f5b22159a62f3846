/**
 * 7z and RAR extraction with 7z-wasm (7-Zip compiled to WebAssembly), inside the extraction
 * worker. The archive's folder is mounted with NODEFS, so 7-Zip reads the host file directly and
 * the archive is never loaded into memory. Listing (`l -slt`) comes first and is parsed line by
 * line; extraction only starts once the listing has passed every rule, and writes the files' bytes
 * to 7-Zip's standard output (`x -so`), where sevenzip-output.ts cuts them into the planned files
 * by their listed sizes: 7-Zip itself writes no file.
 *
 * 7-Zip never waits for a password: a dummy one is always given and stdin reads as closed, so an
 * encrypted archive fails fast and is reported as such.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ArchiveFormatReadBy } from '@sitehall/contracts';
import type { SevenZipModule, SevenZipModuleFactory } from '7z-wasm';
import type { CheckedFile } from './content.js';
import { displayName, withoutLeadingDot } from './names.js';
import { type ListedEntry, planUpload } from './plan.js';
import { refuseRar4SpecialEntries } from './rar4-headers.js';
import { type IngestLimits, Refusal } from './refusal.js';
import { compileSevenZip, type WasmInstance, type WasmModule, wasm } from './sevenzip-code.js';
import { ExtractedFiles } from './sevenzip-output.js';

/**
 * The package is CommonJS with an ES-style `export default` in its typings: at run time its
 * exports are the factory itself. Required rather than imported: an `import` has Node read its
 * 83 KB of Emscripten glue with its export lexer first, ≈30 ms of CPU for each new extraction
 * worker (docs/benchmarks.md "A worker's first job").
 */
const loadSevenZip = createRequire(import.meta.url)('7z-wasm') as SevenZipModuleFactory;

/** Emscripten's hook for instantiating the module itself (not in the package's typings). */
type InstantiateWasm = (
  imports: object,
  done: (instance: WasmInstance, module: WasmModule) => void,
) => object;

const DUMMY_PASSWORD = '-psitehall-no-password';
const ARCHIVE_MOUNT = '/in';

export async function extractWithSevenZip(
  format: ArchiveFormatReadBy<'7z-wasm'>,
  archivePath: string,
  outDir: string,
  limits: IngestLimits,
  /** 7-Zip compiled by the server's main thread (sevenzip-code.ts); compiled here if not given. */
  compiled?: WasmModule,
): Promise<CheckedFile[]> {
  const code = compiled ?? (await compileSevenZip());
  const rar4 = format === 'rar' && !(await isRar5(archivePath));
  const typeSwitch = format === '7z' ? '-t7z' : rar4 ? '-trar' : '-trar5';
  const archiveArg = `${ARCHIVE_MOUNT}/${path.basename(archivePath)}`;
  const mounts = { [ARCHIVE_MOUNT]: path.dirname(archivePath) };

  // One instance lists, then extracts: the extraction runs only after a listing that ended well
  // (a crashed instance is never reused), and saves an instance and its JavaScript's warm-up
  // (docs/benchmarks.md "7z ingest: session 60").
  const sevenZip = await openSevenZip(code, mounts);
  const listing = new ListingParser(limits.maxArchiveEntries);
  const listed = sevenZip.run(['l', '-slt', typeSwitch, DUMMY_PASSWORD, '-sccUTF-8', archiveArg], {
    onLine: (line) => listing.line(line),
    onWrite: () => {
      if (listing.refusal) throw listing.refusal;
    },
  });
  listing.end();
  if (listing.refusal) throw listing.refusal;
  if (listed.code !== 0 || listing.problems.length > 0) {
    throw await failure(listed, listing.problems, format, archivePath);
  }
  if (listing.entryRefusal) throw listing.entryRefusal;
  const { entries } = listing;
  if (listing.archiveEncrypted()) throw new Refusal('encrypted');
  if (entries.length === 0) throw new Refusal('emptyArchive');
  // 7-Zip lists a RAR 4 link as an ordinary file: its mode is read from the headers instead.
  if (rar4) refuseRar4SpecialEntries(archivePath, 4 * entries.length + 64);
  const plan = planUpload(entries, limits, 'archive');

  // 7-Zip writes the files' bytes to its standard output, in the listing's order; they are cut
  // into the planned files there, by their declared sizes (sevenzip-output.ts).
  const output = new ExtractedFiles(outDir, plan);
  try {
    const extracted = sevenZip.run(['x', '-so', typeSwitch, DUMMY_PASSWORD, '-bd', '-sccUTF-8', archiveArg], {
      onData: (memory, offset, length) => output.write(memory, offset, length),
    });
    if (extracted.code !== 0) throw await failure(extracted, [], format, archivePath);
    return output.end();
  } finally {
    output.close();
  }
}

interface SevenZipRun {
  /** 7-Zip's exit code; null when it crashed (an uncaught C++ exception inside the WebAssembly). */
  code: number | null;
  errors: string[];
}

/** What a 7-Zip command is told of: its output and its writes. */
interface SevenZipHooks {
  /** Each line 7-Zip prints to stdout. */
  onLine?: (line: string) => void;
  /**
   * Called before every write to the terminal; throwing a Refusal here stops 7-Zip.
   * (Emscripten's terminal turns an exception thrown by onLine into a write error.)
   */
  onWrite?: (bytes: number) => void;
  /**
   * Takes the bytes 7-Zip writes to stdout (`x -so`: the files' data), as a view of its memory
   * used at once. Throwing stops 7-Zip: a Refusal is the archive's; any other error (a full
   * disk) is thrown as it is.
   */
  onData?: (memory: Int8Array, offset: number, length: number) => void;
}

/** A 7-Zip instance that runs commands one after another, until one of them fails. */
interface SevenZip {
  run(args: string[], hooks: SevenZipHooks): SevenZipRun;
}

/**
 * A fresh 7-Zip instance with `mounts` (mount point to host folder). A command that crashed,
 * threw or ended with another exit code than 0 ends it: a crashed instance is never reused.
 */
export async function openSevenZip(code: WasmModule, mounts: Record<string, string>): Promise<SevenZip> {
  // Emscripten waits for `done` and has no way to be told of a failure: it is raced instead.
  let failed: (err: unknown) => void = () => {};
  const instantiationFailed = new Promise<never>((_, reject) => {
    failed = reject;
  });
  // Instantiated at once, not with WebAssembly.instantiate: V8 kept the instance an asynchronous
  // instantiation made reachable after the job, and with it 7-Zip's memory (40 MB for a 32 MB
  // dictionary), in a worker that takes the next job (run-worker.ts; docs/benchmarks.md "A 7-Zip
  // worker kept").
  const instantiateWasm: InstantiateWasm = (imports, done) => {
    try {
      done(new wasm.Instance(code, imports), code);
    } catch (err) {
      failed(err);
    }
    return {};
  };
  /** The command running: its hooks, what it printed to stderr and its stdout's lines. */
  let current: { hooks: SevenZipHooks; errors: string[]; stdout: StdoutLines | null } | null = null;
  const sevenZip: SevenZipModule = await Promise.race([
    instantiationFailed,
    loadSevenZip({
      ...({ instantiateWasm } as object),
      print: (line) => current?.hooks.onLine?.(line),
      printErr: (line) => current?.errors.push(line),
      stdin: () => null as unknown as number,
    }),
  ]);
  const { FS } = sevenZip;
  for (const [mountPoint, hostDir] of Object.entries(mounts)) {
    FS.mkdir(mountPoint);
    FS.mount(sevenZip.NODEFS, { root: hostDir }, mountPoint);
  }
  plainPathLookups(sevenZip);
  /** What onData threw that is not the archive's fault (a full disk). */
  let dataFailure: unknown = null;
  // Every byte 7-Zip writes goes through FS.write: to its terminal only, as no command of ours
  // writes a file (the extraction's files come on stdout).
  const write = FS.write.bind(FS);
  FS.write = (stream, buffer, offset, length, position, canOwn) => {
    const { fd, tty } = stream as { fd?: number; tty?: unknown };
    if (tty === undefined) throw new Refusal('extractFailed');
    if (!current) return write(stream, buffer, offset, length, position, canOwn);
    const { hooks, stdout } = current;
    hooks.onWrite?.(length);
    if (fd !== 1) return write(stream, buffer, offset, length, position, canOwn);
    if (hooks.onData) {
      try {
        hooks.onData(buffer as Int8Array, offset, length);
      } catch (err) {
        if (!(err instanceof Refusal)) dataFailure = err;
        throw err;
      }
      return length;
    }
    return stdout ? stdout.write(buffer as Int8Array, offset, length) : length;
  };
  let usable = true;
  return {
    run(args, hooks) {
      if (!usable) throw new Error('7-Zip instance reused after a failed command');
      usable = false;
      const errors: string[] = [];
      const stdout = hooks.onLine ? new StdoutLines(hooks.onLine, sevenZip) : null;
      current = { hooks, errors, stdout };
      try {
        const code = sevenZip.callMain(args) as unknown as number;
        // The lines gathered since the last were told: the output has ended.
        stdout?.flush();
        usable = code === 0;
        return { code, errors };
      } catch (err) {
        // A Refusal thrown by a hook unwinds through 7-Zip and comes out here.
        if (err instanceof Refusal) throw err;
        if (dataFailure) throw dataFailure;
        // What it printed before it crashed is told, as when each line was told as it came.
        try {
          stdout?.flush();
        } catch {
          // A line reader's exception: the command failed already.
        }
        return { code: null, errors };
      } finally {
        current = null;
        // The Emscripten runtime sets the exit code of the thread it runs in; it is not ours to set.
        process.exitCode = undefined;
      }
    },
  };
}

/**
 * 7-Zip's standard output, cut into lines as Emscripten's terminal does it (TTY default_tty_ops),
 * without its work per byte: the terminal called a function per byte and pushed each into a
 * JavaScript array, then decoded the array at each line feed; a 5,000-entry listing (`l -slt`,
 * ≈1–2 MB of text) made ≈36 MB of garbage in it (docs/benchmarks.md "7z ingest: Emscripten's
 * paths"). 7-Zip writes each line in two writes (its text, then the line feed: 100,000 writes for
 * 5,000 entries), so a write only copies its bytes after those before (one copy, no JavaScript per
 * byte), and the lines are told once STAGED_BYTES have gathered, and by flush() when the command
 * has ended: a chunk of valid UTF-8 without NUL is decoded at once and split at its line feeds
 * ("7z ingest: session 35"). The lines are the same strings: a line ends at a line feed, NUL bytes
 * are dropped, a line not ended by a line feed is never told (the terminal only told it when the
 * stream was closed or synced, which 7-Zip does not do), a line that is valid UTF-8 is decoded as
 * such, any other as Emscripten's UTF8ArrayToString decodes a plain array (no replacement
 * characters), and an exception thrown by `onLine` is the write error (EIO) the terminal made of
 * it, after which nothing gathered is told.
 */
export class StdoutLines {
  #staged = Buffer.allocUnsafe(2 * STAGED_BYTES);
  #length = 0;
  #heap: Buffer | null = null;
  readonly #ErrnoError: new (
    errno: number,
  ) => Error;

  constructor(
    private readonly onLine: (line: string) => void,
    sevenZip: SevenZipModule,
  ) {
    this.#ErrnoError = (sevenZip.FS as unknown as { ErrnoError: new (errno: number) => Error }).ErrnoError;
  }

  write(heap: Int8Array, offset: number, length: number): number {
    // One view of 7-Zip's memory, made again only when the memory grows (a new ArrayBuffer).
    if (this.#heap?.buffer !== heap.buffer) this.#heap = Buffer.from(heap.buffer, heap.byteOffset);
    const needed = this.#length + length;
    if (needed > this.#staged.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.#staged.length));
      this.#staged.copy(grown, 0, 0, this.#length);
      this.#staged = grown;
    }
    // Copied: the bytes are 7-Zip's memory, which the next write reuses.
    this.#heap.copy(this.#staged, this.#length, offset, offset + length);
    this.#length = needed;
    if (this.#length >= STAGED_BYTES) this.flush();
    return length;
  }

  /** Tells every whole line gathered (the rest waits for its line feed). */
  flush(): void {
    const staged = this.#staged;
    const end = this.#length === 0 ? -1 : staged.lastIndexOf(LINE_FEED, this.#length - 1);
    if (end < 0) return;
    try {
      const text = staged.toString('utf8', 0, end);
      if (!text.includes('\ufffd') && !text.includes('\0')) {
        for (const line of text.split('\n')) this.onLine(line);
      } else {
        for (let start = 0; start <= end; ) {
          const lineEnd = staged.indexOf(LINE_FEED, start);
          this.onLine(decodeTerminalRange(staged, start, lineEnd));
          start = lineEnd + 1;
        }
      }
    } catch {
      this.#length = 0;
      throw new this.#ErrnoError(EIO);
    }
    staged.copy(staged, 0, end + 1, this.#length);
    this.#length -= end + 1;
  }
}

/** Bytes of 7-Zip's standard output gathered before their lines are told (StdoutLines). */
const STAGED_BYTES = 32 * 1024;
const LINE_FEED = 0x0a;
/** Emscripten's errno for EIO. */
const EIO = 29;

/**
 * The bytes from start to end as Emscripten's terminal decoded them, with no copy when they are
 * valid UTF-8 without NUL (the usual line): Node's decoding of such bytes is Emscripten's. A
 * replacement character or a NUL in the result sends the line the exact way.
 */
function decodeTerminalRange(memory: Buffer, start: number, end: number): string {
  const text = memory.toString('utf8', start, end);
  if (!text.includes('\ufffd') && !text.includes('\0')) return text;
  return decodeTerminalLine(Buffer.from(memory.subarray(start, end)));
}

/** A line's bytes as Emscripten's terminal decoded them (StdoutLines). */
function decodeTerminalLine(line: Buffer): string {
  const bytes = line.includes(0) ? line.filter((b) => b !== 0) : line;
  if (isUtf8(bytes)) return bytes.toString('utf8');
  // Emscripten's UTF8ArrayToString of a plain array: no validation; a byte past the end reads 0.
  const at = (i: number) => (i < bytes.length ? bytes[i]! : 0);
  let text = '';
  let i = 0;
  while (i < bytes.length) {
    let u0 = at(i++);
    if (!(u0 & 0x80)) {
      text += String.fromCharCode(u0);
      continue;
    }
    const u1 = at(i++) & 63;
    if ((u0 & 0xe0) === 0xc0) {
      text += String.fromCharCode(((u0 & 31) << 6) | u1);
      continue;
    }
    const u2 = at(i++) & 63;
    if ((u0 & 0xf0) === 0xe0) u0 = ((u0 & 15) << 12) | (u1 << 6) | u2;
    else u0 = ((u0 & 7) << 18) | (u1 << 12) | (u2 << 6) | (at(i++) & 63);
    if (u0 < 0x10000) text += String.fromCharCode(u0);
    else {
      const ch = u0 - 0x10000;
      text += String.fromCharCode(0xd800 | (ch >> 10), 0xdc00 | (ch & 1023));
    }
  }
  return text;
}

/** Emscripten's FS, as far as plainPathLookups uses it. */
interface FsNode {
  mode: number;
  mounted: { root: FsNode } | null;
}
type LookupOptions = { parent?: boolean; follow?: boolean; follow_mount?: boolean; noent_okay?: boolean };
type Lookup = { path: string; node?: FsNode };
interface FsPaths {
  root: FsNode;
  lookupPath(path: string, opts?: LookupOptions): Lookup;
  lookupNode(parent: FsNode, name: string): FsNode;
  isMountpoint(node: FsNode): boolean;
  isLink(mode: number): boolean;
}

/**
 * Emscripten's FS.lookupPath for the paths 7-Zip gives (absolute, no "." or "..", no link on the
 * way), without its string work: for each part of a path it normalised the whole path so far
 * (a split, a filter and a join), seven lookups per extracted file, about a quarter of a
 * 5,000-file 7z's garbage and ≈0.1 s of its CPU (docs/benchmarks.md "7z ingest: Emscripten's
 * paths"). The walk is the same (the same nodes looked up in the same order, the same mount and
 * not-found rules); any other path, and any link met, is left to Emscripten's own lookup.
 */
export function plainPathLookups(sevenZip: SevenZipModule): void {
  const fsPaths = sevenZip.FS as unknown as FsPaths;
  const lookupPath = fsPaths.lookupPath.bind(fsPaths);
  fsPaths.lookupPath = (path, opts = {}) => {
    if (typeof path !== 'string' || path.charCodeAt(0) !== 0x2f) return lookupPath(path, opts);
    const parts = path.split('/').filter((part) => part !== '');
    if (parts.some((part) => part === '.' || part === '..')) return lookupPath(path, opts);
    const followMount = opts.follow_mount ?? true;
    let current = fsPaths.root;
    let currentPath = '/';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const last = i === parts.length - 1;
      if (last && opts.parent) break;
      // What PATH.join2 made of it: the parts hold no "/", ".", ".." or empty name.
      currentPath = currentPath === '/' ? `/${part}` : `${currentPath}/${part}`;
      try {
        current = fsPaths.lookupNode(current, part);
      } catch (err) {
        if ((err as { errno?: unknown } | null)?.errno === ENOENT && last && opts.noent_okay) {
          return { path: currentPath };
        }
        throw err;
      }
      if (fsPaths.isMountpoint(current) && (!last || followMount)) current = current.mounted!.root;
      if (fsPaths.isLink(current.mode) && (!last || opts.follow)) return lookupPath(path, opts);
    }
    return { path: currentPath, node: current };
  };
}

/** Emscripten's errno for "no such file or directory". */
const ENOENT = 44;

/** What a failed 7-Zip run means for the user. */
async function failure(
  run: SevenZipRun,
  problems: string[],
  format: ArchiveFormatReadBy<'7z-wasm'>,
  archivePath: string,
): Promise<Refusal> {
  const text = [...run.errors, ...problems].join('\n');
  if (/wrong password|encrypted/i.test(text)) return new Refusal('encrypted');
  if (/unsupported method/i.test(text)) return new Refusal('unsupportedMethod');
  // 7-Zip crashes (rather than reporting) on a 7z whose header is encrypted and the password wrong.
  if (run.code === null && format === '7z' && (await hasEncryptedHeader(archivePath))) {
    return new Refusal('encrypted');
  }
  return new Refusal(run.code === null ? 'extractFailed' : 'corrupt');
}

async function readBytes(file: string, position: number, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function isRar5(archivePath: string): Promise<boolean> {
  const head = await readBytes(archivePath, 0, 8);
  return head.equals(Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1'));
}

const K_ENCODED_HEADER = 0x17;
const AES_METHOD_ID = Buffer.from([0x06, 0xf1, 0x07, 0x01]);

/**
 * A 7z whose "next header" is itself packed (kEncodedHeader) with the 7zAES coder: the file list
 * is encrypted. The start header gives the next header's offset and size.
 */
async function hasEncryptedHeader(archivePath: string): Promise<boolean> {
  const start = await readBytes(archivePath, 0, 32);
  if (start.length < 32) return false;
  const offset = Number(start.readBigUInt64LE(12));
  const size = Number(start.readBigUInt64LE(20));
  if (!Number.isSafeInteger(offset + size) || size === 0) return false;
  const header = await readBytes(archivePath, 32 + offset, Math.min(size, 4096));
  return header[0] === K_ENCODED_HEADER && header.includes(AES_METHOD_ID);
}

const KEY_VALUE = /^([A-Za-z][A-Za-z ]*?) = (.*)$/;

/**
 * Parses `7zz l -slt` output as it is printed: the archive's properties after "--", then one block
 * of "Key = Value" lines per entry after "----------". Any other line after "--" (ERRORS:,
 * WARNINGS: and their details, "Errors: 1") is a problem. Past the entry limit it records a
 * refusal and ignores the rest; the caller stops 7-Zip at its next write.
 *
 * Each block is described (describeEntry) as soon as it ends and only what the plan needs is kept:
 * a map of every property per entry made the listing of 5,000 files ≈5 MB of the worker's heap.
 * The first entry refused is remembered, and told after the listing's own refusals and failures.
 */
class ListingParser {
  readonly archive = new Map<string, string>();
  readonly entries: ListedEntry[] = [];
  readonly problems: string[] = [];
  refusal: Refusal | null = null;
  entryRefusal: Refusal | null = null;
  #phase: 'preamble' | 'archive' | 'entries' = 'preamble';
  #current: Map<string, string> | null = null;
  #count = 0;

  constructor(private readonly maxEntries: number) {}

  line(text: string): void {
    if (this.refusal) return;
    if (this.#phase === 'preamble') {
      if (text === '--') this.#phase = 'archive';
      return;
    }
    if (text === '----------' && this.#phase === 'archive') {
      this.#phase = 'entries';
      return;
    }
    if (text === '') {
      this.#endEntry();
      return;
    }
    const match = KEY_VALUE.exec(text);
    if (!match) {
      this.problems.push(text);
      return;
    }
    const [, key = '', value = ''] = match;
    if (this.#phase === 'archive') {
      this.archive.set(key, value);
      return;
    }
    if (key === 'Path' || !this.#current) {
      this.#endEntry();
      if (this.#count >= this.maxEntries) {
        this.refusal = new Refusal('tooManyEntries', { n: this.maxEntries });
        return;
      }
      this.#count++;
      this.#current = new Map();
    }
    // A repeated key means a name smuggled a line break into the listing.
    if (this.#current.has(key)) {
      this.refusal = new Refusal('badName', { name: displayName(value) });
      return;
    }
    this.#current.set(key, value);
  }

  /** The output has ended: its last block is described too. */
  end(): void {
    if (!this.refusal) this.#endEntry();
  }

  #endEntry(): void {
    const props = this.#current;
    this.#current = null;
    if (!props || this.entryRefusal) return;
    try {
      const entry = describeEntry(props);
      if (entry) this.entries.push(entry);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.entryRefusal = err;
    }
  }

  archiveEncrypted(): boolean {
    return /AES/i.test(this.archive.get('Method') ?? '') || this.archive.get('Encrypted') === '+';
  }
}

/**
 * One listed entry. The Attributes value is 7-Zip's rendering: Windows attribute letters
 * ("RHS8DAdNTsLCOIEV", where D is a directory, d a device, L a reparse point such as a link), then
 * for archives made on Unix a space and an ls-style mode whose first character is the file type.
 * Null for the archive's root folder, listed as '.' (withoutLeadingDot): no entry of the site.
 */
function describeEntry(props: Map<string, string>): ListedEntry | null {
  const listed = props.get('Path') ?? '';
  const shown = displayName(listed);
  const [windows = '', posix = ''] = (props.get('Attributes') ?? '').split(' ');
  const posixType = posix.charAt(0);
  const isDir = props.get('Folder') === '+' || windows.includes('D') || posixType === 'd';
  // 7-Zip extracts `./index.html` as `index.html`.
  const name = withoutLeadingDot(listed, isDir);
  const links = [...props].some(([key, value]) => /link/i.test(key) && value !== '' && value !== '-');
  if (
    links ||
    windows.includes('L') ||
    windows.includes('d') ||
    (posixType !== '' && posixType !== '-' && posixType !== 'd') ||
    props.get('Alternate Stream') === '+' ||
    props.get('Anti') === '+'
  ) {
    throw new Refusal('notRegularFile', { name: shown });
  }
  if (props.get('Encrypted') === '+') throw new Refusal('encrypted');
  if (props.get('Split Before') === '+' || props.get('Split After') === '+') throw new Refusal('corrupt');
  if (isDir && name === '' && listed !== '') return null;
  const size = isDir ? 0 : Number(props.get('Size'));
  if (!Number.isSafeInteger(size) || size < 0 || (!isDir && props.get('Size') === '')) {
    throw new Refusal('corrupt');
  }
  return { name: isDir ? `${name}/` : name, isDir, size };
}
