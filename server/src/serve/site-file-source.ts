/**
 * The bytes behind site responses, fast. Blobs are immutable (named by their hash), so everything
 * derived from one can be kept forever: compressed variants are made once per blob and stored
 * beside it, and small hot bodies (plain and compressed) live in a byte-bounded LRU in memory.
 * Compression runs in zlib's thread pool, a few jobs at a time, never on the event loop.
 */
import { Readable, Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { BlobNotFound, type BlobStore, StorageUnavailable } from '../storage/index.js';
import { ByteLru } from './byte-lru.js';
import type { ContentEncoding } from './http-conditions.js';
import type { SiteFile } from './resolve.js';

export interface SiteFileSourceOptions {
  /** Memory for hot bodies, plain and compressed together. Default 64 MB. */
  memoryBytes?: number;
  /** Bodies up to this size are served from memory. Default 1 MB. */
  maxMemoryFileBytes?: number;
  /** Smaller files are never compressed: headers would eat the gain. Default 1 KB. */
  minCompressBytes?: number;
  /**
   * The first request for a file up to this size waits for its compression (tens of ms); larger
   * files are compressed in the background while that request gets the plain bytes. Default 2 MB.
   */
  compressWhileWaitingUpTo?: number;
  /** Compression jobs at once; each holds a thread of the shared libuv pool. Default 2. */
  compressionConcurrency?: number;
  /** 6: about gzip's speed with a clearly smaller result; 11 is ~40x slower for ~10% less. */
  brotliQuality?: number;
  gzipLevel?: number;
  /** Told about failed background work (the file keeps being served uncompressed). */
  onError?: (error: unknown) => void;
  /** Told whether each whole body asked of fromMemory was there (the cache hit/miss metric). */
  onMemoryLookup?: (hit: boolean) => void;
}

export interface EncodedBody {
  encoding: ContentEncoding;
  size: number;
}

const VARIANT: Record<ContentEncoding, string> = { br: 'br', gzip: 'gz' };
const MAX_QUEUED_JOBS = 1000;
const MAX_KNOWN_VARIANTS = 50_000;

const brotliCompress = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export class SiteFileSource {
  readonly memory: ByteLru;
  readonly minCompressBytes: number;
  readonly #maxMemoryFile: number;
  readonly #waitUpTo: number;
  readonly #concurrency: number;
  readonly #brotliQuality: number;
  readonly #gzipLevel: number;
  readonly #onError: (error: unknown) => void;
  readonly #onMemoryLookup: (hit: boolean) => void;
  /** `${sha}:${variant}` → stored size, or null when known to be absent. */
  readonly #variantSizes = new Map<string, number | null>();
  /** Compression jobs by `${sha}:${variant}`; `started` is false while the job waits in the queue. */
  readonly #jobs = new Map<string, { done: Promise<number | null>; started: boolean }>();
  readonly #loads = new Map<string, Promise<Buffer>>();
  readonly #queue: Array<() => void> = [];
  #running = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(
    readonly store: BlobStore,
    opts: SiteFileSourceOptions = {},
  ) {
    this.#maxMemoryFile = opts.maxMemoryFileBytes ?? 1024 * 1024;
    this.memory = new ByteLru(opts.memoryBytes ?? 64 * 1024 * 1024, this.#maxMemoryFile);
    this.minCompressBytes = opts.minCompressBytes ?? 1024;
    this.#waitUpTo = opts.compressWhileWaitingUpTo ?? 2 * 1024 * 1024;
    this.#concurrency = opts.compressionConcurrency ?? 2;
    this.#brotliQuality = opts.brotliQuality ?? 6;
    this.#gzipLevel = opts.gzipLevel ?? 6;
    this.#onError = opts.onError ?? (() => {});
    this.#onMemoryLookup = opts.onMemoryLookup ?? (() => {});
  }

  /**
   * The best compressed form of the file among `accepted` (best first) that exists or can be made
   * now, or null to send it plain. A missing variant is made on this first use: waited for when
   * the file is small and a compression slot is free, otherwise queued in the background.
   */
  async pickEncoding(file: SiteFile, accepted: readonly ContentEncoding[]): Promise<EncodedBody | null> {
    for (const encoding of accepted) {
      let size = await this.#variantSize(file.sha256, encoding);
      if (size === null) size = await this.#makeVariant(file, encoding, file.size <= this.#waitUpTo);
      // A variant no smaller than the original was still stored (so it is never made again), but
      // is not worth sending.
      if (size !== null && size < file.size) return { encoding, size };
    }
    return null;
  }

  /**
   * The body to send: the whole file, its compressed variant, or a byte range of the plain file.
   * Small bodies come from (and go to) memory; large ones are streamed from the store.
   */
  async open(
    file: SiteFile,
    encoding: ContentEncoding | null,
    range?: { start: number; end: number },
  ): Promise<Buffer | Readable> {
    if (encoding) {
      const variant = VARIANT[encoding];
      const key = `${file.sha256}:${variant}`;
      const size = this.#variantSizes.get(key);
      // A variant of another size than remembered is asked about again next time.
      const forget = () => this.#variantSizes.delete(key);
      if (size != null && size <= this.#maxMemoryFile) {
        return this.#memoryBody(key, size, () => this.#readVariant(file.sha256, variant)).catch((error) => {
          if (error instanceof StorageUnavailable) forget();
          throw error;
        });
      }
      const stream = await this.#readVariant(file.sha256, variant);
      return size == null ? stream : exactly(stream, size, key, forget);
    }
    if (file.size <= this.#maxMemoryFile) {
      const whole = await this.#memoryBody(file.sha256, file.size, () => this.store.read(file.sha256));
      return range ? whole.subarray(range.start, range.end + 1) : whole;
    }
    const length = range ? range.end - range.start + 1 : file.size;
    return exactly(await this.store.read(file.sha256, range), length, file.sha256);
  }

  /**
   * pickEncoding's answer when it is known without I/O (variant sizes seen before), or undefined
   * when pickEncoding must be asked.
   */
  knownEncoding(file: SiteFile, accepted: readonly ContentEncoding[]): EncodedBody | null | undefined {
    for (const encoding of accepted) {
      const size = this.#variantSizes.get(`${file.sha256}:${VARIANT[encoding]}`);
      if (size == null) return undefined;
      if (size < file.size) return { encoding, size };
    }
    return null;
  }

  /** The body from memory when it is there (plain or a known variant), else undefined. */
  fromMemory(file: SiteFile, encoding: ContentEncoding | null): Buffer | undefined {
    const key = this.memoryKey(file, encoding);
    if (key === null) return undefined;
    return this.fromMemoryKey(key);
  }

  /**
   * Where memory keeps a file's body (plain or a variant), or null when it is never kept there:
   * a plain body over the memory limit (a variant is only asked for once its size is known).
   */
  memoryKey(file: SiteFile, encoding: ContentEncoding | null): string | null {
    if (encoding) return `${file.sha256}:${VARIANT[encoding]}`;
    return file.size <= this.#maxMemoryFile ? file.sha256 : null;
  }

  /** fromMemory for a key from memoryKey (kept by the caller, so no key is built per request). */
  fromMemoryKey(key: string): Buffer | undefined {
    const body = this.memory.get(key);
    this.#onMemoryLookup(body !== undefined);
    return body;
  }

  /** Resolves once no compression job is running or queued (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async #variantSize(sha256: string, encoding: ContentEncoding): Promise<number | null> {
    const key = `${sha256}:${VARIANT[encoding]}`;
    const known = this.#variantSizes.get(key);
    if (known !== undefined) return known;
    const stat = await this.store.statVariant(sha256, VARIANT[encoding]);
    this.#remember(key, stat?.size ?? null);
    return stat?.size ?? null;
  }

  #remember(key: string, size: number | null): void {
    if (this.#variantSizes.size >= MAX_KNOWN_VARIANTS && !this.#variantSizes.has(key)) {
      const oldest = this.#variantSizes.keys().next().value;
      if (oldest !== undefined) this.#variantSizes.delete(oldest);
    }
    this.#variantSizes.set(key, size);
  }

  async #readVariant(sha256: string, variant: string): Promise<Readable> {
    const stream = await this.store.readVariant(sha256, variant);
    if (stream) return stream;
    // Variants go only with their blob: the blob is gone too.
    this.#variantSizes.delete(`${sha256}:${variant}`);
    throw new BlobNotFound(sha256);
  }

  /**
   * One load per key at a time, however many requests ask at once. A body of another length than
   * `size` is refused, not kept: memory would serve it until evicted, and a variant made of it
   * would be stored for good.
   */
  async #memoryBody(key: string, size: number, open: () => Promise<Readable>): Promise<Buffer> {
    const cached = this.memory.get(key);
    if (cached) return cached;
    let load = this.#loads.get(key);
    if (!load) {
      // Bounded by maxMemoryFileBytes: only small bodies are gathered whole.
      load = open()
        .then((stream) => buffer(stream))
        .then((body) => {
          if (body.length !== size) throw wrongLength(key, body.length, size);
          this.memory.set(key, body);
          return body;
        })
        .finally(() => this.#loads.delete(key));
      this.#loads.set(key, load);
    }
    return load;
  }

  /**
   * Starts (or joins) the one compression job for this blob and encoding. With `wait`, returns the
   * variant's size when the job runs now; a job that would have to queue behind others is left to
   * the background and null is returned, so no request waits on someone else's large file.
   */
  #makeVariant(file: SiteFile, encoding: ContentEncoding, wait: boolean): Promise<number | null> {
    const key = `${file.sha256}:${VARIANT[encoding]}`;
    const existing = this.#jobs.get(key);
    if (existing) return wait && existing.started ? existing.done : Promise.resolve(null);
    const job = { done: Promise.resolve<number | null>(null), started: false };
    const start = () => {
      job.started = true;
      return this.#compress(file, encoding);
    };
    if (wait && this.#running < this.#concurrency) {
      this.#running++;
      job.done = this.#settle(key, start());
    } else if (this.#queue.length < MAX_QUEUED_JOBS) {
      job.done = this.#settle(key, new Promise((resolve) => this.#queue.push(() => resolve(start()))));
      if (this.#running < this.#concurrency) this.#startNext();
    } else {
      return Promise.resolve(null);
    }
    this.#jobs.set(key, job);
    return wait && job.started ? job.done : Promise.resolve(null);
  }

  #settle(key: string, work: Promise<number | null>): Promise<number | null> {
    return work
      .catch((error: unknown) => {
        this.#onError(error);
        return null;
      })
      .finally(() => {
        this.#jobs.delete(key);
        this.#release();
      });
  }

  #release(): void {
    this.#running--;
    if (this.#queue.length > 0) this.#startNext();
    else if (this.#running === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #startNext(): void {
    const next = this.#queue.shift();
    if (!next) return;
    this.#running++;
    next();
  }

  async #compress(file: SiteFile, encoding: ContentEncoding): Promise<number> {
    const variant = VARIANT[encoding];
    const key = `${file.sha256}:${variant}`;
    let size: number;
    if (file.size <= this.#maxMemoryFile) {
      const plain = await this.#memoryBody(file.sha256, file.size, () => this.store.read(file.sha256));
      const packed =
        encoding === 'br'
          ? await brotliCompress(plain, this.#brotliOptions(plain.length))
          : await gzip(plain, { level: this.#gzipLevel });
      await this.store.putVariant(file.sha256, variant, Readable.from([packed]));
      if (packed.length < plain.length) this.memory.set(key, packed);
      size = packed.length;
    } else {
      const packer =
        encoding === 'br'
          ? zlib.createBrotliCompress(this.#brotliOptions(file.size))
          : zlib.createGzip({ level: this.#gzipLevel });
      const source = exactly(await this.store.read(file.sha256), file.size, file.sha256);
      // Both settled before the job is: a read that breaks fails the pipeline at once, while the
      // store is still removing the variant's temp file; the job (and idle()) must not end first.
      const [stored, compressed] = await Promise.allSettled([
        this.store.putVariant(file.sha256, variant, packer),
        pipeline(source, packer),
      ]);
      if (compressed.status === 'rejected') throw compressed.reason;
      if (stored.status === 'rejected') throw stored.reason;
      size = (await this.store.statVariant(file.sha256, variant))?.size ?? Number.POSITIVE_INFINITY;
    }
    this.#remember(key, size);
    return size;
  }

  #brotliOptions(sizeHint: number): zlib.BrotliOptions {
    return {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: this.#brotliQuality,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: sizeHint,
      },
    };
  }
}

/**
 * A blob's bytes as the store answered them were not as many as its file table says: a store (or
 * a proxy in front of it) that ended a body short, or sent bytes past its end, without a
 * Content-Length to tell. A store fault, answered as one (503), and never kept.
 */
function wrongLength(name: string, got: number, size: number): StorageUnavailable {
  return new StorageUnavailable(new Error(`blob ${name}: the store answered ${got} bytes, not ${size}`));
}

/**
 * `source`, failing (rather than ending) when it holds other than exactly `size` bytes: no byte past
 * the Content-Length sent from it goes out, and a body cut short is cut off, not left hanging.
 */
function exactly(source: Readable, size: number, name: string, onWrong?: () => void): Readable {
  let passed = 0;
  const wrong = () => {
    onWrong?.();
    return wrongLength(name, passed, size);
  };
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      passed += chunk.length;
      if (passed > size) return callback(wrong());
      callback(null, chunk);
    },
    flush(callback) {
      callback(passed === size ? null : wrong());
    },
    // The reader went away (a client closed the connection): release the store's stream too.
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  source.on('error', (error) => checked.destroy(error));
  return source.pipe(checked);
}
