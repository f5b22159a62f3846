/**
 * A multipart upload body → the staging area (ingest/staging.ts). Each file part streams to its
 * own temp file, with the upload limits enforced while the bytes arrive. Anything that goes wrong
 * (limits, bad fields, a client that disconnects or goes silent, a full disk, a shutdown) removes
 * the upload's staging folder before the error is thrown. The route passes the result to the
 * project service, which discards it once done.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { format, formatBytes, messages, type UploadLimits } from '@sitehall/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError, InsufficientStorage, Invalid, TooLarge } from '../domain/errors.js';
import {
  STREAM_BYTES,
  type StagedFile,
  type StagedUpload,
  type StagingOptions,
  stageFile,
  stagingFolder,
  UploadByteBudget,
} from '../ingest/staging.js';
import { isDiskFull } from '../storage/disk-space.js';

const m = messages.project;
const md = messages.deploy;

const DEFAULT_IDLE_MS = 60_000;

/** Text fields an upload may send (it takes five: docs/decisions/uploads.md "Multipart fields"). */
const MAX_FIELDS = 20;

/**
 * What a body must bring in each idle window not to count as idle: 1 KiB a minute (17 bytes a
 * second), scaled to the window. Any real link does; a byte every 20 s, which held an upload (and
 * its connection) open for the 10-minute request timeout, does not.
 */
const MIN_BYTES_PER_MINUTE = 1024;

/**
 * Calls onIdle when the request's socket has read less than a trickle's worth (MIN_BYTES_PER_MINUTE)
 * in idleMs while the body is wanted. A body paused by our own back-pressure (a slow disk) is not
 * the client's silence. The socket's own idle timeout (the server's 60 s) is off meanwhile, so this
 * one decides, and answers.
 */
export function watchIdle(request: FastifyRequest, idleMs: number, onIdle: () => void): () => void {
  const raw = request.raw;
  const socket = raw.socket;
  // An injected request (tests) has no real socket, and its body is all there already.
  if (typeof socket?.setTimeout !== 'function' || typeof socket.bytesRead !== 'number') return () => {};
  const socketTimeout = (socket as { timeout?: number }).timeout ?? 0;
  socket.setTimeout(0);
  const minBytes = Math.max(1, Math.ceil((idleMs * MIN_BYTES_PER_MINUTE) / 60_000));
  let lastRead = socket.bytesRead;
  let lastProgress = Date.now();
  const timer = setInterval(
    () => {
      const t = Date.now();
      if (socket.bytesRead - lastRead >= minBytes || raw.readableFlowing === false || raw.complete) {
        lastRead = socket.bytesRead;
        lastProgress = t;
      } else if (t - lastProgress >= idleMs) {
        clearInterval(timer);
        onIdle();
      }
    },
    Math.min(1_000, Math.max(50, Math.floor(idleMs / 10))),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    if (!socket.destroyed) socket.setTimeout(socketTimeout);
  };
}

export async function stageMultipartUpload(
  request: FastifyRequest,
  limits: UploadLimits,
  opts: StagingOptions,
): Promise<StagedUpload> {
  if (!request.isMultipart())
    throw new AppError('unsupported_media_type', messages.common.unsupportedMediaType);
  const folder = stagingFolder(opts);
  const { discard } = folder;

  const fields: Record<string, string> = {};
  const files: StagedFile[] = [];
  /** The items against the files-per-upload limit (uploadItemCount's rule: a folder is one). */
  const items = new Set<string>();
  const budget = new UploadByteBudget(limits);
  // Silence or shutdown ends the upload from outside the loop: the part being written is
  // destroyed (abort) and the loop, wherever it waits, loses the race against `stopped`.
  const abort = new AbortController();
  const state: { stoppedBy: AppError | null } = { stoppedBy: null };
  let rejectStopped: (error: AppError) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    rejectStopped = reject;
  });
  stopped.catch(() => undefined);
  const stop = (error: AppError) => {
    if (state.stoppedBy) return;
    state.stoppedBy = error;
    abort.abort(error);
    rejectStopped(error);
  };
  const unwatch = watchIdle(request, opts.idleTimeoutMs ?? DEFAULT_IDLE_MS, () =>
    stop(new AppError('timeout', m.uploadIdle, { closeConnection: true })),
  );
  const unregister = opts.receiving?.add(stop) ?? (() => false);
  let received: Promise<void> | undefined;
  try {
    await folder.create();
    received = receiveParts();
    await Promise.race([received, stopped]);
  } catch (err) {
    await discard();
    if (state.stoppedBy) {
      // The loop ends once its part is destroyed or the connection closes; then nothing it made
      // may stay behind either.
      received?.then(undefined, () => undefined).finally(() => discard().catch(() => undefined));
      throw state.stoppedBy;
    }
    throw translateMultipartError(err, limits, request);
  } finally {
    unwatch();
    unregister();
  }
  return { id: folder.id, dir: folder.dir, workDir: folder.workDir, fields, files, discard };

  async function receiveParts(): Promise<void> {
    // A request destroyed before the parser is attached never says so again: @fastify/multipart
    // listens for its 'close' and 'error' from here on, and piping a destroyed stream gives neither
    // data nor an end, so the loop below would wait for a part for ever (and watchIdle takes a body
    // Node read whole as progress). That is a body declared shorter than sent, whose rest Node read
    // as a next request and refused (closing the connection) while the route was still admitting
    // it, or a client's half-close mid-body: checked here, in the same turn as the attach.
    if (request.raw.destroyed) throw new AppError('invalid', m.uploadInterrupted);
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
        fields: MAX_FIELDS,
        fieldSize: 64 * 1024,
        parts: Math.max(limits.maxFilesPerUpload, limits.maxArchiveEntries) + MAX_FIELDS,
      },
    });
    for await (const part of parts) {
      if (state.stoppedBy) {
        if (part.type === 'file') part.file.resume();
        throw state.stoppedBy;
      }
      if (part.type === 'field') {
        // A `files` part without a filename arrives as a text field: it is a file with no name.
        if (part.fieldname === 'files') throw new Invalid('files', m.fileNameBlank);
        // Sent twice, a field says two things (docs/decisions/uploads.md "Multipart fields").
        if (Object.hasOwn(fields, part.fieldname)) {
          throw new Invalid(part.fieldname, format(messages.common.fieldRepeated, { field: part.fieldname }));
        }
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value ?? '');
        continue;
      }
      if (part.fieldname !== 'files') {
        part.file.resume();
        // A file sent under another name (`file`, say): refused as a field the upload does not take.
        throw new Invalid(part.fieldname, format(messages.auth.fieldNotAllowed, { field: part.fieldname }));
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
      const tempFile = path.join(folder.inDir, String(files.length));
      files.push(await stageFile(part.file, name, tempFile, budget, abort.signal));
    }
  }
}

function translateMultipartError(err: unknown, limits: UploadLimits, request: FastifyRequest): unknown {
  if (err instanceof AppError) return err;
  // Our disk, not the user's upload: 507, never "invalid upload".
  if (isDiskFull(err)) return new InsufficientStorage(err);
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new TooLarge(format(m.fileTooLarge, { size: formatBytes(limits.maxFileBytes) }), 'files');
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new TooLarge(format(m.tooManyFolderFiles, { n: limits.maxArchiveEntries }), 'files');
  }
  if (code === 'FST_FIELDS_LIMIT')
    return new Invalid(null, format(messages.common.tooManyFields, { n: MAX_FIELDS }));
  if (code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return new Invalid(null, messages.common.badRequest);
  }
  // The client went away before the end (the request was aborted or reset), or sent a body that
  // isn't multipart as it said (no boundary, a broken part header, no closing boundary).
  const message = err instanceof Error ? err.message : '';
  if (request.raw.readableAborted || code === 'ECONNRESET' || /aborted/i.test(message)) {
    return new AppError('invalid', m.uploadInterrupted);
  }
  return new Invalid(null, m.uploadMalformed);
}

/**
 * A deploy's batch (POST /api/deploys/{id}/files): its file parts as they arrive, each named by the
 * SHA-256 it claims, and a signal that aborts when the client goes away before the end (the part
 * being written is then destroyed and the service keeps nothing). A text field, more parts than
 * `maxFiles`, or a broken body is refused in Chinese.
 */
export function deployBatchParts(
  request: FastifyRequest,
  opts: { maxFiles: number; maxFileBytes: number },
): {
  parts: AsyncIterable<{ sha256: string; file: Readable }>;
  signal: AbortSignal;
  /** Resolves once the body has been read to its end (or the client went away). */
  drained(): Promise<void>;
  done(): void;
} {
  if (!request.isMultipart())
    throw new AppError('unsupported_media_type', messages.common.unsupportedMediaType);
  const abort = new AbortController();
  const interrupted = new AppError('invalid', m.uploadInterrupted);
  const onClose = () => {
    if (!request.raw.complete) abort.abort(interrupted);
  };
  request.raw.once('close', onClose);
  const aborted = new Promise<never>((_, reject) => {
    abort.signal.addEventListener('abort', () => reject(interrupted), { once: true });
  });
  aborted.catch(() => undefined);
  // Destroyed before this listened (its connection closed while the route was admitting it): its
  // 'close' has been and gone, and its body can no longer be read (receiveParts above, the same).
  if (request.raw.destroyed) abort.abort(interrupted);
  async function* parts() {
    const iterator = request
      .parts({
        fileHwm: STREAM_BYTES,
        limits: {
          // One byte over the limit reaches the service, which refuses it with the limit's message.
          fileSize: opts.maxFileBytes + 1,
          files: opts.maxFiles,
          fields: 0,
          parts: opts.maxFiles,
        },
      })
      [Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), aborted]);
        if (next.done) return;
        const part = next.value;
        if (part.type !== 'file') throw new Invalid('files', md.batchNotFile);
        yield { sha256: part.fieldname, file: part.file as Readable };
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      const code = (err as { code?: string }).code;
      if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT')
        throw new TooLarge(format(md.batchTooManyFiles, { n: opts.maxFiles }), 'files');
      if (code === 'FST_FIELDS_LIMIT') throw new Invalid('files', md.batchNotFile);
      if (code === 'FST_REQ_FILE_TOO_LARGE')
        throw new TooLarge(format(m.fileTooLarge, { size: formatBytes(opts.maxFileBytes) }), 'files');
      if (abort.signal.aborted || request.raw.readableAborted || code === 'ECONNRESET') throw interrupted;
      throw new Invalid(null, m.uploadMalformed);
    }
  }
  return {
    parts: parts(),
    signal: abort.signal,
    // The parser stops at the closing boundary; whatever follows it is still in flight. A reply
    // sent before it is read would make Node close a connection the client may reuse.
    drained: () =>
      request.raw.readableEnded || request.raw.destroyed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            request.raw.once('end', resolve);
            request.raw.once('close', resolve);
            request.raw.resume();
          }),
    done: () => request.raw.off('close', onClose),
  };
}
