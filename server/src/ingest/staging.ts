/**
 * The staging area of uploads: each upload's own folder, and the writing of one received file into
 * it (never buffered whole) with the upload's byte limit enforced while the bytes arrive. Reading a
 * request's multipart body into it is the HTTP side's work (http/multipart-upload.ts); whoever
 * stages an upload removes its folder whatever happens (`discard`).
 *
 * Folders are named `{instance}.{time}-{random}` (docs/decisions.md "Leftover sweep"), so a sweep
 * on any instance can tell whether the process that made one is gone.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { format, formatBytes, messages, type UploadLimits } from '@sitehall/contracts';
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
  const id = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  const dir = path.join(stagingRoot(opts.dataDir), opts.owner ? `${opts.owner}.${id}` : id);
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
  let size = 0;
  const digest = new ContentDigest({ utf8: isTextExtension(extensionOfPath(name)), crc32: false });
  const counter = new Transform({
    highWaterMark: STREAM_BYTES,
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      digest.update(chunk);
      try {
        budget.add(chunk.length);
      } catch (error) {
        done(error as Error);
        return;
      }
      done(null, chunk);
    },
  });
  await pipeline(source, counter, fs.createWriteStream(tempFile, { highWaterMark: STREAM_BYTES }), {
    signal,
  });
  return { name, tempFile, size, facts: digest.finish() };
}
