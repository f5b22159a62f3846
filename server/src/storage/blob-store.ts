/**
 * The content-addressed blob store: site files are kept once per SHA-256, whatever deployment or
 * project refers to them. The interface speaks only of hashes, streams and sizes, never of paths,
 * so a store on S3-compatible object storage can replace the local one without changes elsewhere.
 */
import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import type { OutageEvent } from '../domain/outage-watch.js';

/** An inclusive byte range, as HTTP ranges are. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /**
   * Streams bytes in, hashing as they pass, and stores them under their SHA-256. Idempotent: an
   * existing blob is kept. A partial write (the source errors, the process dies) never becomes
   * visible under a hash.
   */
  put(source: Readable): Promise<{ sha256: string; size: number }>;
  /**
   * Adopts a local file whose SHA-256 the caller has already computed (the ingest fast path). The
   * hash is trusted, not re-checked. The source file is consumed: moved, or copied then removed.
   */
  putFile(filePath: string, sha256: string): Promise<void>;
  /**
   * Stores bytes held in memory whose SHA-256 the caller has already computed (a digest deploy's
   * small files), as putFile does a file: the hash is trusted. An existing blob stays under its
   * name (a local store may replace it with the same bytes, in one rename).
   */
  putBytes(bytes: Buffer, sha256: string): Promise<void>;
  /**
   * The whole blob or an inclusive byte range of it. Throws BlobNotFound when missing, RangeError
   * when start > end or start is past the last byte; an end past the last byte is clamped.
   */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  stat(sha256: string): Promise<{ size: number } | null>;
  /**
   * The sizes of those of the hashes the store holds (absent ones are not in the map): what
   * `stat` on each would say, for stores that can ask about many at once more cheaply. Optional:
   * callers fall back to `stat` per hash.
   */
  sizes?(hashes: readonly string[]): Promise<Map<string, number>>;
  /** Removes the blob and its variants; a missing blob is fine. */
  delete(sha256: string): Promise<void>;
  /** Every stored hash, for the orphan sweep. Variants are not listed. */
  list(): AsyncIterable<string>;
  /**
   * Derived copies of a blob (compressed bodies), keyed by hash + variant name ('br', 'gz').
   * Replaces an existing variant. Throws BlobNotFound when the blob itself is missing.
   */
  putVariant(sha256: string, variant: string, source: Readable): Promise<void>;
  readVariant(sha256: string, variant: string): Promise<Readable | null>;
  statVariant(sha256: string, variant: string): Promise<{ size: number } | null>;
  /**
   * Removes writes in progress older than maxAgeMs (default an hour), left by a crash; younger
   * ones may still be running, here or in another instance. Returns how many were removed.
   */
  removeStaleTemp(maxAgeMs?: number): Promise<number>;
  /**
   * Releases what the store holds open (an S3 client's keep-alive connections); called once, by
   * whoever opened the store, when nothing will use it again.
   */
  close(): Promise<void>;
  /**
   * Where a store on the network tells when it becomes unreachable and when it is back, once each
   * per outage (storage/s3-guard.ts); a local folder has no such events and leaves it out.
   */
  reportTo?(onEvent: (event: StoreEvent) => void): void;
  /**
   * Throws the store's 503 (StorageUnavailable) when it is known to be unreachable right now, without
   * asking it: what an upload checks before reading a body it could not store anyway.
   */
  throwIfDown?(): void;
  /** Whether a store on the network is known to be unreachable right now (a local folder has no such state). */
  readonly down?: boolean;
}

/** A networked store became unreachable (its calls fail with a 503 at once), or answers again. */
export type StoreEvent = OutageEvent;

export class BlobNotFound extends Error {
  readonly code = 'BLOB_NOT_FOUND';
  constructor(readonly sha256: string) {
    super(`Blob ${sha256} not found`);
    this.name = 'BlobNotFound';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const VARIANT_NAME = /^[a-z0-9]{1,16}$/;

export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value);
}

/**
 * Every store call checks its hash first: the hash becomes a file name or an object key, so only
 * 64 lower-case hex digits may pass (no separators, no '..', no case twins).
 */
export function assertSha256(value: unknown): asserts value is string {
  if (!isSha256Hex(value)) throw new TypeError('Invalid blob hash: expected 64 lower-case hex digits');
}

export function assertVariantName(value: unknown): asserts value is string {
  if (typeof value !== 'string' || !VARIANT_NAME.test(value)) {
    throw new TypeError('Invalid variant name: expected 1-16 lower-case letters or digits');
  }
}

export function assertByteRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`Invalid byte range ${start}-${end}`);
  }
}

/** Passes bytes through unchanged, taking their SHA-256 and count on the way (for `put`). */
export class HashingMeter extends Transform {
  readonly #hash = createHash('sha256');
  #size = 0;

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#hash.update(bytes);
    this.#size += bytes.length;
    this.push(bytes);
    callback();
  }

  /** Once every byte has passed: the hash (lower-case hex) and the byte count. */
  result(): { sha256: string; size: number } {
    return { sha256: this.#hash.digest('hex'), size: this.#size };
  }
}
