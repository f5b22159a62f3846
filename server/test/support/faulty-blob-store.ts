/**
 * A blob store that fails on demand, for the stream fault tests: it wraps a real store and passes
 * everything through, except reads of the blobs it is told to break. A blob can vanish between
 * listing and reading (deleted from the real store the moment it is read, as when its project is
 * deleted meanwhile), its reads can fail after N bytes (a disk error, a cut S3 connection), or
 * end cleanly with the wrong length (a store, or a proxy in front of it, answering a body cut
 * short or with bytes past its end, without a Content-Length to tell).
 */
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import type { BlobStore, ByteRange } from '../../src/storage/index.js';

export class InjectedReadError extends Error {
  readonly code = 'EIO';
  constructor() {
    super('injected read failure');
  }
}

export class FaultyBlobStore implements BlobStore {
  readonly #vanishing = new Set<string>();
  readonly #breaking = new Map<string, number>();
  /** Blob → the length its reads end at (shorter: cut short; longer: padded with zeros). */
  readonly #lengths = new Map<string, number>();
  readonly #holding = new Map<string, { bytes: number; released: Promise<void> }>();
  readonly #releases = new Set<() => void>();
  /** Reads failed on purpose so far (tests check a fault was really met). */
  failedReads = 0;
  vanished = 0;

  constructor(readonly inner: BlobStore) {}

  /** The next read of this blob (or of a variant of it) finds it deleted. */
  vanishOnRead(sha256: string): void {
    this.#vanishing.add(sha256);
  }

  /** Every read of this blob (and its variants) fails after `bytes` bytes. */
  breakAfter(sha256: string, bytes: number): void {
    this.#breaking.set(sha256, bytes);
  }

  /**
   * Every read of this blob (not its variants) ends cleanly after `bytes` bytes: fewer than it
   * holds, or more (zeros past its end).
   */
  answerWithLength(sha256: string, bytes: number): void {
    this.#lengths.set(sha256, bytes);
  }

  /**
   * Reads of this blob stop after `bytes` bytes until the returned function is called (heal()
   * lets them on too).
   */
  holdAfter(sha256: string, bytes: number): () => void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#holding.set(sha256, { bytes, released });
    this.#releases.add(release);
    return release;
  }

  heal(): void {
    this.#vanishing.clear();
    this.#breaking.clear();
    this.#lengths.clear();
    this.#holding.clear();
    for (const release of this.#releases) release();
    this.#releases.clear();
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    await this.#maybeVanish(sha256);
    const source = await this.inner.read(sha256, range);
    const length = this.#lengths.get(sha256);
    return this.#maybeBreak(sha256, length === undefined ? source : withLength(source, length));
  }

  async readVariant(sha256: string, variant: string): Promise<Readable | null> {
    await this.#maybeVanish(sha256);
    const stream = await this.inner.readVariant(sha256, variant);
    return stream && this.#maybeBreak(sha256, stream);
  }

  put(source: Readable) {
    return this.inner.put(source);
  }
  putFile(filePath: string, sha256: string) {
    return this.inner.putFile(filePath, sha256);
  }
  putBytes(bytes: Buffer, sha256: string) {
    return this.inner.putBytes(bytes, sha256);
  }
  stat(sha256: string) {
    return this.inner.stat(sha256);
  }
  delete(sha256: string) {
    return this.inner.delete(sha256);
  }
  list() {
    return this.inner.list();
  }
  putVariant(sha256: string, variant: string, source: Readable) {
    return this.inner.putVariant(sha256, variant, source);
  }
  statVariant(sha256: string, variant: string) {
    return this.inner.statVariant(sha256, variant);
  }
  removeStaleTemp(maxAgeMs?: number) {
    return this.inner.removeStaleTemp(maxAgeMs);
  }
  close() {
    return this.inner.close();
  }

  async #maybeVanish(sha256: string): Promise<void> {
    if (!this.#vanishing.delete(sha256)) return;
    this.vanished++;
    await this.inner.delete(sha256);
  }

  #maybeBreak(sha256: string, source: Readable): Readable {
    const hold = this.#holding.get(sha256);
    const held = hold ? holdAfter(source, hold.bytes, hold.released) : source;
    const limit = this.#breaking.get(sha256);
    if (limit === undefined) return held;
    return failAfter(held, limit, () => this.failedReads++);
  }
}

/** `source` ending cleanly after `length` bytes: cut short, or padded with zeros past its end. */
function withLength(source: Readable, length: number): Readable {
  let passed = 0;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const part = chunk.subarray(0, Math.max(0, length - passed));
      passed += part.length;
      callback(null, part);
    },
    flush(callback) {
      callback(null, passed < length ? Buffer.alloc(length - passed) : undefined);
    },
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  source.on('error', (error) => out.destroy(error));
  return source.pipe(out);
}

/** `source`, its bytes after the first `limit` held back until `released` settles. */
function holdAfter(source: Readable, limit: number, released: Promise<void>): Readable {
  let passed = 0;
  let open = false;
  void released.then(() => (open = true));
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (open) return callback(null, chunk);
      const room = limit - passed;
      if (chunk.length <= room) {
        passed += chunk.length;
        return callback(null, chunk);
      }
      if (room > 0) this.push(chunk.subarray(0, room));
      passed = limit;
      void released.then(() => callback(null, chunk.subarray(room)));
    },
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  source.on('error', (error) => out.destroy(error));
  return source.pipe(out);
}

/**
 * The first `limit` bytes of `source`, then an error (also when the source ends sooner: a broken
 * read never ends cleanly). The error waits until the reader has taken the bytes before it (up to
 * a second), so a response has really begun when it breaks.
 */
function failAfter(source: Readable, limit: number, onFail: () => void): Readable {
  let passed = 0;
  let failing = false;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (failing) return callback();
      const room = limit - passed;
      if (chunk.length < room) {
        passed += chunk.length;
        return callback(null, chunk);
      }
      if (room > 0) this.push(chunk.subarray(0, room));
      passed = limit;
      fail();
      // No callback: nothing more passes.
    },
    flush() {
      fail();
    },
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  const fail = () => {
    if (failing) return;
    failing = true;
    const started = Date.now();
    const breakNow = () => {
      if (out.destroyed) return;
      if (out.readableLength > 0 && Date.now() - started < 1000) {
        setTimeout(breakNow, 5);
        return;
      }
      onFail();
      out.destroy(new InjectedReadError());
    };
    setTimeout(breakNow, 5);
  };
  source.on('error', (error) => out.destroy(error));
  return source.pipe(out);
}
