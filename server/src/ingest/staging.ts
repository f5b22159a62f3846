/**
 * Multipart upload → staging area. Each file part streams to its own temp file (never buffered
 * whole), with the upload limits enforced while the bytes arrive. Anything that goes wrong —
 * limits, bad fields, a client that disconnects — removes the upload's staging folder.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { format, formatBytes, messages, type UploadLimits } from '@sitehall/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError, Invalid, TooLarge } from '../http/errors.js';
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

/** Buffering between the socket, the multipart parser and the staged file. */
const STREAM_BYTES = 1024 * 1024;

/** Multipart framing and the text fields fit in this much on top of the files' bytes. */
const OVERHEAD_BYTES = 1024 * 1024;

export function stagingRoot(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

/** Refuses by Content-Length before reading a byte of a body that can't fit. */
export function checkDeclaredLength(request: FastifyRequest, limits: UploadLimits): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxUploadBytes + OVERHEAD_BYTES) {
    throw new TooLarge(format(m.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }), 'files');
  }
}

export async function stageUpload(
  request: FastifyRequest,
  dataDir: string,
  limits: UploadLimits,
): Promise<StagedUpload> {
  if (!request.isMultipart()) throw new AppError(415, messages.common.unsupportedMediaType);
  const id = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  const dir = path.join(stagingRoot(dataDir), id);
  const inDir = path.join(dir, 'in');
  const workDir = path.join(dir, 'work');
  await fs.promises.mkdir(inDir, { recursive: true });
  await fs.promises.mkdir(workDir, { recursive: true });
  const discard = () => fs.promises.rm(dir, { recursive: true, force: true });

  const fields: Record<string, string> = {};
  const files: StagedFile[] = [];
  /** The items against the files-per-upload limit (uploadItemCount's rule: a folder is one). */
  const items = new Set<string>();
  let total = 0;
  try {
    const parts = request.parts({
      // Folder uploads send relative paths ('css/app.css') as filenames: keep them.
      preservePath: true,
      // Part streams buffer up to 1 MB (the default, 16 KB, is less than one socket read, so
      // the parser paused on every chunk).
      fileHwm: STREAM_BYTES,
      limits: {
        fileSize: limits.maxFileBytes,
        // A folder counts as one item (ingest/names.ts): the parser's own cap is the most files a
        // folder may hold; the items are counted below.
        files: Math.max(limits.maxFilesPerUpload, limits.maxArchiveEntries),
        fields: 20,
        fieldSize: 64 * 1024,
        parts: Math.max(limits.maxFilesPerUpload, limits.maxArchiveEntries) + 20,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value ?? '');
        continue;
      }
      if (part.fieldname !== 'files') {
        part.file.resume();
        throw new Invalid('files', messages.common.badRequest);
      }
      const name = part.filename ?? '';
      if (!name.trim()) {
        part.file.resume();
        throw new Invalid('files', m.fileNameBlank);
      }
      items.add(name.indexOf('/') > 0 ? `${name.slice(0, name.indexOf('/'))}/` : name);
      if (items.size > limits.maxFilesPerUpload) {
        part.file.resume();
        throw new TooLarge(format(m.tooManyFiles, { n: limits.maxFilesPerUpload }), 'files');
      }
      const tempFile = path.join(inDir, String(files.length));
      let size = 0;
      const digest = new ContentDigest({ utf8: isTextExtension(extensionOfPath(name)), crc32: false });
      const counter = new Transform({
        highWaterMark: STREAM_BYTES,
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          digest.update(chunk);
          total += chunk.length;
          if (total > limits.maxUploadBytes) {
            done(
              new TooLarge(format(m.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }), 'files'),
            );
            return;
          }
          done(null, chunk);
        },
      });
      await pipeline(part.file, counter, fs.createWriteStream(tempFile, { highWaterMark: STREAM_BYTES }));
      files.push({ name, tempFile, size, facts: digest.finish() });
    }
  } catch (err) {
    await discard();
    throw translateMultipartError(err, limits, request);
  }
  return { id, dir, workDir, fields, files, discard };
}

function translateMultipartError(err: unknown, limits: UploadLimits, request: FastifyRequest): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new TooLarge(format(m.fileTooLarge, { size: formatBytes(limits.maxFileBytes) }), 'files');
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new TooLarge(format(m.tooManyFolderFiles, { n: limits.maxArchiveEntries }), 'files');
  }
  if (
    code === 'FST_FIELDS_LIMIT' ||
    code === 'FST_PROTO_VIOLATION' ||
    code === 'FST_INVALID_MULTIPART_CONTENT_TYPE'
  ) {
    return new Invalid(null, messages.common.badRequest);
  }
  // The client went away before the end (the request was aborted or reset), or sent a body that
  // isn't multipart as it said (no boundary, a broken part header, no closing boundary).
  const message = err instanceof Error ? err.message : '';
  if (request.raw.readableAborted || code === 'ECONNRESET' || /aborted/i.test(message)) {
    return new AppError(400, m.uploadInterrupted);
  }
  return new Invalid(null, m.uploadMalformed);
}
