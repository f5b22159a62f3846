/**
 * The staging area of uploads: each upload's own folder, and the writing of one received file into
 * it (never buffered whole) with the upload's byte limit enforced while the bytes arrive. Reading a
 * request's multipart body into it is the HTTP side's work (http/multipart-upload.ts); whoever
 * stages an upload removes its folder whatever happens (`discard`).
 *
 * Folders are named `{instance}.{time}-{random}` (docs/decisions/instances.md "Leftover sweep"), so a sweep
 * on any instance can tell whether the process that made one is gone.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  archiveFormatOfExtension,
  format,
  formatBytes,
  messages,
  type UploadLimits,
} from '@sitehall/contracts';
import { type AppError, TooLarge } from '../domain/errors.js';
import { isTextExtension } from './content.js';
import { ContentDigest, type ContentFacts } from './digest.js';
import { extensionOfPath } from './names.js';

const m = messages.project;

export interface StagedFile {
  /** The part's filename as sent: a relative path for folder uploads. */
  name: string;
  tempFile: string;
  size: number;
  /**
   * Hash, head and UTF-8 check, taken as the bytes arrived: a loose file then needs no second
   * pass over its bytes (an archive's entries are hashed as they are extracted).
   */
  facts: ContentFacts;
}

export interface StagedUpload {
  id: string;
  dir: string;
  /** An empty folder for the ingest step. */
  workDir: string;
  fields: Record<string, string>;
  files: StagedFile[];
  /** Removes everything this upload staged. */
  discard(): Promise<void>;
}

/** Buffering between the source, the staged file and the disk. */
export const STREAM_BYTES = 1024 * 1024;

/** Multipart framing and the text fields fit in this much on top of the files' bytes. */
const OVERHEAD_BYTES = 1024 * 1024;

export function stagingRoot(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

/**
 * A new name under staging/: `{instance}.{base36 ms}-{random}`, or `{base36 ms}-{random}` without
 * an instance (docs/decisions/instances.md "Leftover sweep"). An instance id holds no '.' (jobs/instances.ts).
 */
export function newStagingName(owner?: string, at: number = Date.now()): string {
  const id = `${at.toString(36)}-${randomBytes(6).toString('hex')}`;
  return owner ? `${owner}.${id}` : id;
}

/** A new path under staging/ (a folder to make, or a file to write). */
export function newStagingPath(dataDir: string, owner?: string): string {
  return path.join(stagingRoot(dataDir), newStagingName(owner));
}

/**
 * What a name under staging/ says: the text before its first '.' (the instance that made it, when
 * it has one: the sweep asks whether that is an instance id) and when it was made (epoch ms; 0 when
 * the name does not say).
 */
export function parseStagingName(name: string): { owner: string | null; madeAt: number } {
  const dot = name.indexOf('.');
  const owner = dot > 0 ? name.slice(0, dot) : null;
  const time = /^([0-9a-z]{1,11})-[0-9a-z]+$/.exec(dot >= 0 ? name.slice(dot + 1) : name)?.[1];
  return { owner, madeAt: time ? Number.parseInt(time, 36) : 0 };
}

/** Uploads still receiving their body: shutdown answers those left after its grace period. */
export class ReceivingUploads {
  readonly #stops = new Set<(error: AppError) => void>();

  add(stop: (error: AppError) => void): () => void {
    this.#stops.add(stop);
    return () => this.#stops.delete(stop);
  }

  /** Ends every upload still receiving with this answer (its staging is removed). */
  stopAll(error: AppError): number {
    const n = this.#stops.size;
    for (const stop of [...this.#stops]) stop(error);
    return n;
  }
}

/** Where and how upload bodies are received. */
export interface StagingOptions {
  dataDir: string;
  /** The instance id (jobs/instances.ts): the folder is named staging/{owner}.{upload}. */
  owner?: string;
  /** A body that sends nothing for this long is refused as timed out (default 60 s). */
  idleTimeoutMs?: number;
  receiving?: ReceivingUploads;
}

/** Refuses by the declared body length before reading a byte of a body that can't fit. */
export function checkDeclaredLength(contentLength: string | undefined, limits: UploadLimits): void {
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > limits.maxUploadBytes + OVERHEAD_BYTES) {
    throw new TooLarge(format(m.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }), 'files');
  }
}

/** One upload's folder: `in/` for the received files, `work/` (empty) for the ingest step. */
export interface StagingFolder {
  id: string;
  dir: string;
  inDir: string;
  workDir: string;
  discard(): Promise<void>;
}

/** Names the folder; `create` makes it (a failure there is the caller's to discard). */
export function stagingFolder(opts: StagingOptions): StagingFolder & { create(): Promise<void> } {
  const name = newStagingName(opts.owner);
  const id = name.slice(name.indexOf('.') + 1);
  const dir = path.join(stagingRoot(opts.dataDir), name);
  const inDir = path.join(dir, 'in');
  const workDir = path.join(dir, 'work');
  return {
    id,
    dir,
    inDir,
    workDir,
    // Retries: a file being destroyed may still be created while the folder goes.
    discard: () => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 }),
    async create() {
      await fs.promises.mkdir(inDir, { recursive: true });
      await fs.promises.mkdir(workDir, { recursive: true });
    },
  };
}

/** Counts an upload's bytes across its files against maxUploadBytes. */
export class UploadByteBudget {
  #total = 0;

  constructor(private readonly limits: UploadLimits) {}

  /** Throws TooLarge once the upload's bytes pass the limit. */
  add(n: number): void {
    this.#total += n;
    if (this.#total > this.limits.maxUploadBytes) {
      throw new TooLarge(
        format(m.uploadTooLarge, { size: formatBytes(this.limits.maxUploadBytes) }),
        'files',
      );
    }
  }
}

/**
 * Writes one received file to `tempFile`, taking its facts (hash, head, UTF-8 check) as the bytes
 * pass and counting them against the upload's budget.
 */
export async function stageFile(
  source: Readable,
  name: string,
  tempFile: string,
  budget: UploadByteBudget,
  signal: AbortSignal,
): Promise<StagedFile> {
  const extension = extensionOfPath(name);
  const facts = await writeCounted(source, tempFile, {
    utf8: isTextExtension(extension),
    // An archive is extracted, not stored: its staging copy never needs to reach the disk.
    flushAhead: archiveFormatOfExtension(extension) === null,
    admit: (_size, chunk) => budget.add(chunk),
    signal,
  });
  return { name, tempFile, size: facts.size, facts };
}

/**
 * The one count-and-hash stream of received bytes (a multipart part, a deploy's PUT): streams
 * `source` to `file`, taking the content's facts as the bytes pass. `admit` sees the size so far
 * and the chunk's length before the chunk is written: it may refuse (throw) or make the stream
 * wait (a promise) while it reserves room. The file is the caller's to remove.
 */
export async function writeCounted(
  source: Readable,
  file: string,
  opts: {
    utf8: boolean;
    admit?: (size: number, chunk: number) => void | Promise<void>;
    signal?: AbortSignal;
    /** The file will be a blob as it is (not an archive to extract): flush it as it grows. */
    flushAhead?: boolean;
  },
): Promise<ContentFacts> {
  let size = 0;
  const digest = new ContentDigest({ utf8: opts.utf8, crc32: false });
  const sink = fs.createWriteStream(file, { highWaterMark: STREAM_BYTES });
  const flush = opts.flushAhead ? new FlushAhead(sink) : null;
  const counter = new Transform({
    highWaterMark: STREAM_BYTES,
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      digest.update(chunk);
      flush?.nudge();
      let admitted: void | Promise<void>;
      try {
        admitted = opts.admit?.(size, chunk.length);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (!admitted) {
        done(null, chunk);
        return;
      }
      admitted.then(
        () => done(null, chunk),
        (error: unknown) => done(error as Error),
      );
    },
  });
  try {
    await pipeline(source, counter, sink, ...(opts.signal ? [{ signal: opts.signal }] : []));
  } finally {
    await flush?.settled();
  }
  return digest.finish();
}

/** Written bytes between two flushes of a file that is still arriving. */
export const FLUSH_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * Flushes a file that is still being written (`fdatasync` each time FLUSH_AHEAD_BYTES more are
 * written, one at a time), so that the fsync the blob store does once it is complete
 * (storage/local-blob-store.ts `putFile`) finds little left: a 100 MB upload's answer had waited
 * ≈45 ms for it after the last byte, now the disk writes while the bytes arrive
 * (docs/decisions/uploads.md "Flushed as they arrive"). A flush that fails is not this stream's
 * error: the store's own fsync reports what is wrong with the disk.
 */
class FlushAhead {
  #flushed = 0;
  #flushing: Promise<void> | null = null;

  constructor(private readonly sink: fs.WriteStream) {}

  /** Starts a flush when enough was written since the last one and none is running. */
  nudge(): void {
    const { sink } = this;
    const fd = (sink as unknown as { fd: number | null }).fd;
    if (this.#flushing || typeof fd !== 'number' || sink.closed || sink.destroyed) return;
    const written = sink.bytesWritten;
    if (written - this.#flushed < FLUSH_AHEAD_BYTES) return;
    this.#flushing = new Promise((resolve) =>
      fs.fdatasync(fd, () => {
        this.#flushed = written;
        this.#flushing = null;
        resolve();
      }),
    );
  }

  /** Once the flush running, if any, has ended. */
  settled(): Promise<void> {
    return this.#flushing ?? Promise.resolve();
  }
}

/** What `receiveCounted` kept: the bytes themselves when they fit in memory, else a file. */
export type ReceivedContent = { facts: ContentFacts } & (
  | { bytes: Buffer; file?: undefined }
  | { bytes?: undefined; file: string }
);

/**
 * As `writeCounted`, for the many small files of a digest deploy's batch: a source of at most
 * `inMemory` bytes is kept in memory, one buffer, with no file made for it (a temp file per small
 * file cost a first deploy of 5,000 files more than everything else it did: docs/benchmarks.md
 * "Digest deploys"); a larger one is written to the file `file()` names, the bytes already read
 * first. `admit` sees every chunk as in writeCounted; an abort destroys the source.
 */
export async function receiveCounted(
  source: Readable,
  opts: {
    utf8: boolean;
    inMemory: number;
    file: () => Promise<string>;
    admit?: (size: number, chunk: number) => void | Promise<void>;
    signal?: AbortSignal;
  },
): Promise<ReceivedContent> {
  let size = 0;
  const digest = new ContentDigest({ utf8: opts.utf8, crc32: false });
  const chunks: Buffer[] = [];
  const chunksOf = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let flushing: FlushAhead | null = null;
  const take = async (chunk: Buffer): Promise<void> => {
    size += chunk.length;
    digest.update(chunk);
    flushing?.nudge();
    await opts.admit?.(size, chunk.length);
  };
  const onAbort = () => source.destroy(opts.signal?.reason as Error);
  opts.signal?.throwIfAborted();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = await chunksOf.next();
      // A copy, even of one chunk: a view would keep the whole socket read it came in alive (a
      // client sending one tiny part per read would pin 64 KB for each few bytes counted).
      if (next.done) return { facts: digest.finish(), bytes: Buffer.concat(chunks, size) };
      await take(next.value);
      chunks.push(next.value);
      if (size > opts.inMemory) break;
    }
    const file = await opts.file();
    async function* rest(): AsyncGenerator<Buffer> {
      yield* chunks.splice(0);
      for (;;) {
        const next = await chunksOf.next();
        if (next.done) return;
        await take(next.value);
        yield next.value;
      }
    }
    // A file this large becomes a blob as it is: flushed as it arrives, as writeCounted's.
    const sink = fs.createWriteStream(file, { highWaterMark: STREAM_BYTES });
    const flush = new FlushAhead(sink);
    flushing = flush;
    try {
      await pipeline(Readable.from(rest()), sink);
    } finally {
      await flush.settled();
    }
    return { facts: digest.finish(), file };
  } catch (error) {
    source.destroy();
    throw error;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
