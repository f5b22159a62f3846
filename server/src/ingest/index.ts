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
import { acceptContent, type CheckedFile } from './content.js';
import type { ContentFacts } from './digest.js';
import { mediaTypeFor } from './media-type.js';
import { displayName } from './names.js';
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
  /**
   * The bytes are already in the blob store under facts.sha256 (a digest deploy): every file
   * carries its facts, sizes are taken from them and no temp file is read (tempFile is empty).
   */
  held?: boolean;
  /** Whose upload this is: the workers are shared fairly between accounts (domain/fair-slots.ts). */
  account?: number;
}

export interface IngestedFile {
  /** NFC, '/'-separated, no leading slash, after wrapper-folder unwrapping. */
  path: string;
  /**
   * Absolute path of the bytes: the staged file itself, or an extracted file under workDir; empty
   * when the bytes are already in the blob store (IngestInput.held).
   */
  tempFile: string;
  size: number;
  /** Hex. */
  sha256: string;
  /** By extension; text types carry "; charset=utf-8" when their bytes are valid UTF-8. */
  mimeType: string;
  extension: string;
  /** Not web content: stored with application/octet-stream, so it is served as a download only. */
  downloadOnly: boolean;
}

export interface IngestResult {
  /** Sorted by path. */
  files: IngestedFile[];
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
      { kind: 'archive', format: archiveFormat, reader, archivePath, outDir, limits: withForbidden(limits) },
      {
        timeoutMs: input.timeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS,
        timeoutReason: 'extractTimeout',
        signal,
        account: input.account,
      },
    );
    return buildResult(checked, 'zip', archiveFormat);
  } catch (err) {
    await fs.promises.rm(outDir, { recursive: true, force: true });
    throw err;
  }
}

async function ingestLooseFiles(input: IngestInput, signal?: AbortSignal): Promise<IngestResult> {
  if (input.held) return ingestHeldFiles(input, signal);
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

/** Loose files whose bytes the blob store holds: the same plan and content rules, on their facts. */
function ingestHeldFiles(input: IngestInput, signal?: AbortSignal): IngestResult {
  const facts = input.files.map((f) => {
    if (!f.facts) throw new Error(`ingest: held file ${f.name} has no facts`);
    return f.facts;
  });
  const entries = input.files.map((f, i) => ({ name: f.name, isDir: false, size: facts[i]!.size }));
  const plan = planUpload(entries, withForbidden(input.limits), 'deploy');
  signal?.throwIfAborted();
  const executables = new RefusedNames('executable');
  const checked = plan.files.flatMap(
    (f) => executables.check(() => acceptContent(f.path, '', facts[f.index]!, f.downloadOnly)) ?? [],
  );
  executables.throwIfAny();
  return buildResult(checked, 'files');
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
