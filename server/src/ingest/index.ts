/**
 * Ingest: from an upload's staged temp files to a validated, normalised file tree with hashes,
 * ready to store (docs/product.md "Uploads"). A single .zip/.rar/.7z is an archive (its format told by
 * magic bytes, not by name); anything else is a set of loose files. Everything is checked before a
 * byte is extracted, the heavy work runs in a worker thread under a time limit, and a refusal
 * leaves nothing behind in workDir.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ARCHIVE_FORMATS,
  type ArchiveFormat,
  archiveFormatOfBytes,
  archiveFormatOfExtension,
  extensionOf,
  FORBIDDEN_EXTENSIONS,
  format,
  formatBytes,
  formatNameList,
  messages,
  type UploadLimits,
} from '@sitehall/contracts';
import { AppError } from '../domain/errors.js';
import { acceptContent, acceptHeldContent, type CheckedFile, isTextExtension } from './content.js';
import { ContentDigest, type ContentFacts, HEAD_BYTES } from './digest.js';
import { mediaTypeFor } from './media-type.js';
import { displayName, extensionOfPath, isJunk } from './names.js';
import { planUpload } from './plan.js';
import { type IngestLimits, Refusal, type RefusalKind, type RefusalReason, RefusedNames } from './refusal.js';
import { runIngestJob } from './run-worker.js';
import { findEntryFile, unwrapSingleFolder } from './site-tree.js';

export interface StagedUpload {
  /** The part's filename as sent: may be a relative path 'css/app.css'. */
  name: string;
  tempFile: string;
  size: number;
  /** Taken while staging (see staging.ts); without them the worker reads the file. */
  facts?: ContentFacts;
}

export interface IngestInput {
  files: StagedUpload[];
  uploadType: 'auto' | 'files' | 'zip';
  limits: UploadLimits;
  /** An empty folder owned by this upload, on the same file system as DATA_DIR. */
  workDir: string;
  /** Limit for the worker's part (extraction, hashing); DEFAULT_INGEST_TIMEOUT_MS when absent. */
  timeoutMs?: number;
  /** Whose upload this is: the workers are shared fairly between accounts (domain/fair-slots.ts). */
  account?: number;
  /**
   * Contents (SHA-256) the blob store holds for this account and keeps until the upload ends (the
   * caller's lease): a zip's entries with these contents are hashed but not extracted to disk
   * (docs/decisions/uploads.md "Re-uploads write only new contents").
   */
  held?: readonly string[];
  /**
   * Which of these contents the blob store holds (any account's), each one leased by the caller
   * until the upload ends: a zip's small entries are asked about in batches once hashed, and
   * those held are not extracted to disk either (docs/decisions/uploads.md "Contents another
   * upload stored"). A failure is taken as "none".
   */
  stored?: (hashes: string[]) => Promise<string[]>;
}

export interface IngestedFile {
  /** NFC, '/'-separated, no leading slash, after wrapper-folder unwrapping. */
  path: string;
  /** Absolute path of the bytes: the staged file itself, or an extracted file under workDir. */
  tempFile: string;
  size: number;
  /** Hex. */
  sha256: string;
  /** By extension; text types carry "; charset=utf-8" when their bytes are valid UTF-8. */
  mimeType: string;
  extension: string;
  /** Not web content: stored with application/octet-stream, so it is served as a download only. */
  downloadOnly: boolean;
  /** The blob store holds its content already (IngestInput `held`): `tempFile` is empty. */
  held?: boolean;
}

/** A content the blob store holds already (a digest deploy), named in the manifest, with its facts. */
export interface HeldFile {
  name: string;
  facts: ContentFacts;
}

/** A held file once ingested: its bytes are the blob store's, under its hash. */
export type IngestedHeldFile = Omit<IngestedFile, 'tempFile'>;

export interface IngestResult<F = IngestedFile> {
  /** Sorted by path. */
  files: F[];
  uploadType: 'files' | 'zip';
  entryFile: string | null;
  totalSize: number;
  archiveFormat?: ArchiveFormat;
}

/** A refused upload: too large for size and count limits, invalid otherwise; the message names the field. */
export class IngestError extends AppError {
  constructor(
    kind: RefusalKind,
    message: string,
    /** Which rule refused it (a key of messages.archive or messages.project), for logs and tests. */
    readonly reason: RefusalReason,
  ) {
    super(kind, message, { errors: { files: message } });
    this.name = 'IngestError';
  }
}

export const DEFAULT_INGEST_TIMEOUT_MS = 60_000;

export async function ingest(input: IngestInput, signal?: AbortSignal): Promise<IngestResult> {
  try {
    return await ingestUpload(input, signal);
  } catch (err) {
    if (err instanceof Refusal) throw toIngestError(err, input.limits);
    throw err;
  }
}

/**
 * Loose files whose bytes the blob store holds (a digest deploy): the same plan and content rules
 * as staged loose files, on their facts; nothing is read.
 */
export function ingestHeld(
  files: readonly HeldFile[],
  limits: UploadLimits,
  signal?: AbortSignal,
): IngestResult<IngestedHeldFile> {
  try {
    signal?.throwIfAborted();
    if (files.length === 0) throw new Refusal('noFiles');
    const entries = files.map((f) => ({ name: f.name, isDir: false, size: f.facts.size }));
    const plan = planUpload(entries, withForbidden(limits), 'deploy');
    const executables = new RefusedNames('executable');
    const checked = plan.files.flatMap(
      (f) => executables.check(() => acceptHeldContent(f.path, files[f.index]!.facts, f.downloadOnly)) ?? [],
    );
    executables.throwIfAny();
    const result = buildResult(checked, 'files');
    return { ...result, files: result.files.map(({ tempFile: _bytesInStore, ...f }) => f) };
  } catch (err) {
    if (err instanceof Refusal) throw toIngestError(err, limits);
    throw err;
  }
}

async function ingestUpload(input: IngestInput, signal?: AbortSignal): Promise<IngestResult> {
  signal?.throwIfAborted();
  const { files, uploadType } = input;
  if (files.length === 0) throw new Refusal('noFiles');
  const single = files.length === 1 ? files[0] : undefined;
  const archiveNamed = single !== undefined && isArchiveName(single.name);
  if (uploadType === 'zip' && !archiveNamed) throw new Refusal('archiveRequired');
  if (single && archiveNamed && uploadType !== 'files') return ingestArchive(single, input, signal);
  return ingestLooseFiles(input, signal);
}

function isArchiveName(name: string): boolean {
  return archiveFormatOfExtension(extensionOf(name)) !== null;
}

async function ingestArchive(
  upload: StagedUpload,
  input: IngestInput,
  signal?: AbortSignal,
): Promise<IngestResult> {
  const { limits } = input;
  const name = displayName(upload.name);
  if (!limits.allowedExtensions.includes(extensionOf(upload.name))) {
    throw new Refusal('entryTypeNotAllowed', { names: [name] });
  }
  const archivePath = path.resolve(upload.tempFile);
  const size = await fileSize(archivePath, name);
  if (size === 0) throw new Refusal('emptyFile', { name });
  if (size > limits.maxFileBytes) throw new Refusal('oversizedFile', { name, bytes: limits.maxFileBytes });
  const archiveFormat = archiveFormatOfBytes(await readHead(archivePath, 8));
  if (!archiveFormat) throw new Refusal('notArchive');
  const { reader } = ARCHIVE_FORMATS[archiveFormat];

  const outDir = await fs.promises.mkdtemp(path.join(input.workDir, 'archive-'));
  try {
    const checked = await runIngestJob(
      {
        kind: 'archive',
        format: archiveFormat,
        reader,
        archivePath,
        outDir,
        limits: withForbidden(limits),
        ...(input.held && input.held.length > 0 && reader === 'yauzl' ? { held: [...input.held] } : {}),
        ...(input.stored && reader === 'yauzl' ? { ask: true } : {}),
      },
      {
        timeoutMs: input.timeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS,
        timeoutReason: 'extractTimeout',
        signal,
        account: input.account,
        ...(input.stored ? { stored: input.stored } : {}),
      },
    );
    return buildResult(checked, 'zip', archiveFormat);
  } catch (err) {
    await fs.promises.rm(outDir, { recursive: true, force: true });
    throw err;
  }
}

async function ingestLooseFiles(input: IngestInput, signal?: AbortSignal): Promise<IngestResult> {
  const staged = input.files.map((f) => ({ ...f, tempFile: path.resolve(f.tempFile) }));
  const entries = await Promise.all(
    staged.map(async (f) => ({
      name: f.name,
      isDir: false,
      size: await fileSize(f.tempFile, displayName(f.name)),
    })),
  );
  const plan = planUpload(entries, withForbidden(input.limits), 'files');
  // Hashed as they arrived: only the content check is left, a look at each file's first bytes.
  const facts = plan.files.map((f) => staged[f.index]!.facts);
  if (facts.every((x, i) => x !== undefined && x.size === entries[plan.files[i]!.index]!.size)) {
    signal?.throwIfAborted();
    const executables = new RefusedNames('executable');
    const checked = plan.files.flatMap(
      (f, i) =>
        executables.check(() =>
          acceptContent(f.path, staged[f.index]!.tempFile, facts[i]!, f.downloadOnly),
        ) ?? [],
    );
    executables.throwIfAny();
    return buildResult(checked, 'files');
  }
  const checked = await runIngestJob(
    {
      kind: 'files',
      files: plan.files.map((f) => ({
        path: f.path,
        tempFile: staged[f.index]!.tempFile,
        downloadOnly: f.downloadOnly,
      })),
    },
    {
      timeoutMs: input.timeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS,
      timeoutReason: 'processTimeout',
      signal,
      account: input.account,
    },
  );
  return buildResult(checked, 'files');
}

export type { ContentFacts } from './digest.js';
export { HEAD_BYTES };

/** Whether a file of this name is text: its bytes' UTF-8 check then decides its type. */
/**
 * A manifest (path → content) without the operating system's litter an upload drops (isJunk:
 * Thumbs.db, desktop.ini, .DS_Store, __MACOSX/, AppleDouble `._` files), so a digest deploy neither
 * asks for it nor counts it as a change against a version that never holds it.
 */
export function withoutJunk<V>(manifest: Record<string, V>): Record<string, V> {
  const entries = Object.entries(manifest);
  return entries.some(([path]) => isJunk(path))
    ? Object.fromEntries(entries.filter(([path]) => !isJunk(path)))
    : manifest;
}

export function isTextName(name: string): boolean {
  return isTextExtension(extensionOfPath(name));
}

/** A held content's facts from one pass over its bytes (hash, size, head and, for text, UTF-8). */
export async function factsOfBytes(bytes: AsyncIterable<Buffer>, utf8: boolean): Promise<ContentFacts> {
  const digest = new ContentDigest({ utf8, crc32: false });
  for await (const chunk of bytes) digest.update(chunk);
  return digest.finish();
}

/**
 * A held content's facts from its first HEAD_BYTES alone, for a type no UTF-8 check decides: the
 * hash and size are the store's, and no CRC is needed (nothing is extracted).
 */
export function factsOfHead(sha256: string, size: number, head: Buffer): ContentFacts {
  return { sha256, crc32: 0, size, head, utf8: true };
}

/**
 * The path, type and count rules of a loose-file upload, checked on names alone (a digest deploy's
 * manifest, before any byte is sent); sizes stand in as 1, or 0 for empty content.
 */
export function checkFileNames(entries: { name: string; size: number }[], limits: UploadLimits): void {
  try {
    planUpload(
      entries.map((e) => ({ name: e.name, isDir: false, size: e.size })),
      withForbidden(limits),
      'deploy',
    );
  } catch (err) {
    if (err instanceof Refusal) throw toIngestError(err, limits);
    throw err;
  }
}

function withForbidden(limits: UploadLimits): IngestLimits {
  return { ...limits, forbiddenExtensions: FORBIDDEN_EXTENSIONS };
}

/** The size on disk (not the size the client claimed); a missing or odd file is unreadable. */
async function fileSize(file: string, name: string): Promise<number> {
  const stat = await fs.promises.lstat(file).catch(() => null);
  if (!stat?.isFile()) throw new Refusal('unreadableFile', { name });
  return stat.size;
}

async function readHead(file: string, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Served as an attachment (serve/content-types.ts): no browser renders it in the site's origin. */
const DOWNLOAD_ONLY_TYPE = 'application/octet-stream';

function buildResult(
  checked: CheckedFile[],
  uploadType: IngestResult['uploadType'],
  archiveFormat?: ArchiveFormat,
): IngestResult {
  const paths = unwrapSingleFolder(checked.map((f) => f.path));
  const files = checked
    .map((f, i): IngestedFile => {
      const filePath = paths[i]!;
      const extension = extensionOf(filePath);
      return {
        path: filePath,
        tempFile: f.tempFile,
        size: f.size,
        sha256: f.sha256,
        mimeType: f.downloadOnly ? DOWNLOAD_ONLY_TYPE : mediaTypeFor(extension, f.utf8),
        extension,
        downloadOnly: f.downloadOnly,
        ...(f.held ? { held: true } : {}),
      };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    files,
    uploadType,
    entryFile: findEntryFile(paths.filter((_, i) => !checked[i]!.downloadOnly)),
    totalSize: files.reduce((sum, f) => sum + f.size, 0),
    ...(archiveFormat ? { archiveFormat } : {}),
  };
}

const MESSAGES: Record<RefusalReason, string> = {
  ...messages.archive,
  emptyFile: messages.project.emptyFile,
  unreadableFile: messages.project.unreadableFile,
  tooManyFiles: messages.project.tooManyFiles,
  tooManyFolderFiles: messages.project.tooManyFolderFiles,
  uploadTooLarge: messages.project.uploadTooLarge,
  noFiles: messages.project.noFiles,
};

function toIngestError(refusal: Refusal, limits: UploadLimits): IngestError {
  const { name, n, bytes } = refusal.values;
  // A message about many files also reads right when a check named one alone.
  const names = refusal.values.names ?? (name !== undefined ? [name] : undefined);
  const values: Record<string, string | number> = {
    list: limits.allowedExtensions.map((e) => `.${e}`).join(', '),
    ...(name !== undefined ? { name } : {}),
    ...(names !== undefined ? { names: formatNameList(names, n ?? names.length) } : {}),
    ...(n !== undefined ? { n } : {}),
    ...(bytes !== undefined ? { size: formatBytes(bytes) } : {}),
  };
  return new IngestError(refusal.kind, format(MESSAGES[refusal.reason], values), refusal.reason);
}
