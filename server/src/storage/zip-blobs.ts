/**
 * A zip of stored blobs, written while it streams (the project download). Blobs are opened one at
 * a time as the zip reaches them, so memory and open files stay flat whatever the size.
 *
 * yazl reports a failure by emitting 'error' on the ZipFile (not on its output) and never listens
 * to the streams it is given; unhandled, either ends the process. Here every failure (a blob
 * deleted since the listing, a read that breaks, a blob shorter than recorded) destroys the output
 * with that error, so whoever sends it aborts the response: a client never gets a zip that looks
 * complete. When the reader goes away first, the blob being read is closed at once.
 */
import type { PassThrough, Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { BlobStore } from './blob-store.js';

export interface ZipEntry {
  path: string;
  sha256: string;
  size: number;
  /** Deflate it (text); stored as is otherwise (images, media: already compressed). */
  compress: boolean;
}

/** `first`: the first entry's blob, already opened by the caller (so its failure came before any byte). */
export function zipOfBlobs(
  store: BlobStore,
  entries: readonly ZipEntry[],
  mtime: Date,
  first?: Readable,
): Readable {
  const zip = new ZipFile();
  // A PassThrough, which the typings call a plain NodeJS.ReadableStream.
  const output = zip.outputStream as PassThrough;
  let reading: Readable | null = null;
  const fail = (error: Error) => {
    if (!output.destroyed) output.destroy(error);
  };
  zip.on('error', fail);
  // The output carries its error as its destroyed state, which the reader sees (Fastify's send,
  // pipeline); this listener only keeps an error raised before the reader has attached its own
  // from being an uncaught one.
  output.on('error', () => {});
  let opened = first;
  output.on('close', () => {
    reading?.destroy();
    reading = null;
    opened?.destroy();
    opened = undefined;
  });
  opened?.on('error', fail);
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.path, { size: entry.size, mtime, compress: entry.compress }, (cb) => {
      if (output.destroyed) return;
      const ready = opened;
      opened = undefined;
      (ready ? Promise.resolve(ready) : store.read(entry.sha256)).then(
        (blob) => {
          if (output.destroyed) {
            blob.destroy();
            return;
          }
          reading = blob;
          blob.on('error', fail);
          cb(null, blob);
        },
        (error: Error) => fail(error),
      );
    });
  }
  zip.end();
  return output;
}
