/**
 * One pass over a file's bytes as they go by: SHA-256, optionally CRC-32 (zip entries carry one),
 * the size, the first HEAD_BYTES for the content check and, for text, whether it is valid UTF-8.
 * Nothing but the head is kept in memory. Runs inside the extraction worker, where synchronous
 * file I/O is the fast choice: it blocks only the worker, never the server's event loop.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { acceptContent, type CheckedFile, type ContentFacts, isTextExtension } from './content.js';
import { extensionOfPath } from './names.js';

/** How much of each file the content check looks at. */
export const HEAD_BYTES = 8192;

/** Read and copy size: large enough that a 100 MB file is a hundred system calls. */
// ContentFacts lives with the checks that read it (content.ts); digests make it.
export type { ContentFacts } from './content.js';

export const IO_CHUNK_BYTES = 1024 * 1024;

export class ContentDigest {
  readonly #hash = createHash('sha256');
  readonly #head: Buffer[] = [];
  readonly #withCrc: boolean;
  /** Where the head is copied instead of into pieces of its own (digestFile's, one per thread). */
  readonly #headInto: Buffer | null;
  #headLength = 0;
  #crc = 0;
  #size = 0;
  #utf8: Utf8Check | null;

  /**
   * The whole data, when it is in memory and kept (the one chunk given to `update`): the head is a
   * view of it, not a copy.
   */
  readonly #whole: Buffer | null;

  constructor(opts: { utf8: boolean; crc32: boolean; headInto?: Buffer; whole?: Buffer }) {
    this.#utf8 = opts.utf8 ? new Utf8Check() : null;
    this.#withCrc = opts.crc32;
    this.#headInto = opts.headInto ?? null;
    this.#whole = opts.whole ?? null;
  }

  update(chunk: Buffer): void {
    this.#hash.update(chunk);
    if (this.#withCrc) this.#crc = crc32(chunk, this.#crc);
    this.#size += chunk.length;
    if (!this.#whole && this.#headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.#headLength);
      if (this.#headInto) part.copy(this.#headInto, this.#headLength);
      else this.#head.push(Buffer.from(part));
      this.#headLength += part.length;
    }
    this.#utf8?.update(chunk);
  }

  finish(): ContentFacts {
    return {
      sha256: this.#hash.digest('hex'),
      crc32: this.#crc,
      size: this.#size,
      // Usually one piece, copied from the first chunk: not copied again.
      head: this.#whole
        ? this.#whole.subarray(0, HEAD_BYTES)
        : this.#headInto
          ? this.#headInto.subarray(0, this.#headLength)
          : this.#head.length === 1
            ? this.#head[0]!
            : Buffer.concat(this.#head),
      utf8: this.#utf8?.finish() ?? true,
    };
  }
}

/**
 * Streaming UTF-8 validation with buffer.isUtf8 (no strings are made): a sequence cut by a chunk
 * boundary is carried over to the next chunk.
 */
class Utf8Check {
  #valid = true;
  #carry: Buffer | null = null;

  update(chunk: Buffer): void {
    if (!this.#valid) return;
    let data = chunk;
    if (this.#carry) {
      // Complete the sequence cut at the previous chunk's end with this chunk's first bytes
      // (never copying the whole chunk: uploads pass through here).
      const length = sequenceLength(this.#carry[0]!);
      const joined = Buffer.concat([this.#carry, chunk.subarray(0, length - this.#carry.length)]);
      data = chunk.subarray(length - this.#carry.length);
      this.#carry = null;
      if (joined.length < length) {
        this.#carry = joined;
        return;
      }
      if (!isUtf8(joined)) {
        this.#valid = false;
        return;
      }
    }
    const cut = incompleteTail(data);
    this.#valid = isUtf8(data.subarray(0, cut));
    this.#carry = cut < data.length ? Buffer.from(data.subarray(cut)) : null;
  }

  finish(): boolean {
    return this.#valid && this.#carry === null;
  }
}

/** The length of a UTF-8 sequence by its first byte (invalid first bytes are caught by isUtf8). */
function sequenceLength(first: number): number {
  return first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
}

/** Where a multi-byte sequence that the data ends in the middle of starts (data.length if none). */
function incompleteTail(data: Buffer): number {
  for (let i = data.length - 1; i >= 0 && i >= data.length - 4; i--) {
    const b = data[i]!;
    if ((b & 0xc0) === 0x80) continue;
    return i + sequenceLength(b) > data.length ? i : data.length;
  }
  return data.length;
}

/**
 * The read buffer of digestFile, one per thread: the function is synchronous, so no two reads share
 * it at once. A fresh 1 MB buffer per file made 5,000 files of a 7z five gigabytes of garbage, over
 * a second of the worker's time in collections (docs/benchmarks.md "Ingest").
 */
let readBuffer: Buffer | undefined;
/**
 * And its head buffer: a head copied into a buffer of its own per file left 5,000 × 8 KB of
 * ArrayBuffers (40 MB outside the heap) waiting for a collection at the end of a 7z ingest, the
 * ingest's peak (docs/benchmarks.md "7z ingest: memory").
 */
let headBuffer: Buffer | undefined;

/**
 * Reads a file from disk through a ContentDigest, in IO_CHUNK_BYTES reads into one buffer. The
 * facts' head is this thread's head buffer: valid until the next call, so it is checked at once.
 */
export function digestFile(file: string, checkUtf8: boolean): ContentFacts {
  headBuffer ??= Buffer.allocUnsafeSlow(HEAD_BYTES);
  const digest = new ContentDigest({ utf8: checkUtf8, crc32: false, headInto: headBuffer });
  readBuffer ??= Buffer.allocUnsafeSlow(IO_CHUNK_BYTES);
  const buffer = readBuffer;
  const fd = fs.openSync(file, 'r');
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      digest.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return digest.finish();
}

/** Hashes and checks a file already on disk (a loose file). */
export function inspectFile(path: string, tempFile: string, downloadOnly: boolean): CheckedFile {
  return acceptContent(
    path,
    tempFile,
    digestFile(tempFile, isTextExtension(extensionOfPath(path))),
    downloadOnly,
  );
}
