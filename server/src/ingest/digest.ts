/**
 * One pass over a file's bytes as they stream by: SHA-256, CRC-32 (zip entries carry one), the
 * size, the first HEAD_BYTES for the content check and, for text, whether it is valid UTF-8.
 * Nothing but the head is kept in memory.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { TextDecoder } from 'node:util';
import { crc32 } from 'node:zlib';
import { acceptContent, type CheckedFile, isTextExtension } from './content.js';
import { extensionOfPath } from './names.js';

/** How much of each file the content check looks at. */
const HEAD_BYTES = 8192;

export interface ContentFacts {
  sha256: string;
  crc32: number;
  size: number;
  head: Buffer;
  /** Always true when the UTF-8 check was not asked for. */
  utf8: boolean;
}

export class ContentDigest {
  readonly #hash = createHash('sha256');
  readonly #head: Buffer[] = [];
  #headLength = 0;
  #crc = 0;
  #size = 0;
  #decoder: TextDecoder | null;
  #utf8 = true;

  constructor(checkUtf8: boolean) {
    this.#decoder = checkUtf8 ? new TextDecoder('utf-8', { fatal: true }) : null;
  }

  update(chunk: Buffer): void {
    this.#hash.update(chunk);
    this.#crc = crc32(chunk, this.#crc);
    this.#size += chunk.length;
    if (this.#headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.#headLength);
      this.#head.push(Buffer.from(part));
      this.#headLength += part.length;
    }
    this.#decode(chunk, true);
  }

  finish(): ContentFacts {
    this.#decode(undefined, false);
    return {
      sha256: this.#hash.digest('hex'),
      crc32: this.#crc,
      size: this.#size,
      head: Buffer.concat(this.#head),
      utf8: this.#utf8,
    };
  }

  #decode(chunk: Buffer | undefined, stream: boolean): void {
    if (!this.#decoder) return;
    try {
      this.#decoder.decode(chunk, { stream });
    } catch {
      this.#utf8 = false;
      this.#decoder = null;
    }
  }
}

/** Reads a file from disk through a ContentDigest. */
export async function digestFile(file: string, checkUtf8: boolean): Promise<ContentFacts> {
  const digest = new ContentDigest(checkUtf8);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 256 * 1024 })) {
    digest.update(chunk as Buffer);
  }
  return digest.finish();
}

/** Hashes and checks a file already on disk (a loose file, or one 7-Zip extracted). */
export async function inspectFile(path: string, tempFile: string): Promise<CheckedFile> {
  const facts = await digestFile(tempFile, isTextExtension(extensionOfPath(path)));
  return acceptContent(path, tempFile, facts);
}
