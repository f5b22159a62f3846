/**
 * What 7-Zip extracts, made into the planned files by this module rather than by 7-Zip through
 * Emscripten's file system. 7-Zip is run with `x -so`: it writes every file's bytes to its standard
 * output, one file after another in the order it listed them (folders and empty files write none),
 * and they are cut here by the sizes the listing declared, each hashed as it goes by (ContentDigest)
 * and written to a new file of the output folder. 7-Zip's own per-file work in Emscripten's
 * JavaScript (about sixty calls a file: look-ups, stat, mknod, open, getattr, utime, chmod, close)
 * and the read of every file back to hash it are gone (docs/benchmarks.md "7z ingest: session 60").
 *
 * The cut is exact by construction: a 7z's and a RAR's unpacked sizes are what 7-Zip's decoder
 * splits a block's output by, and it checks each file's CRC; a run that does not end with exit code
 * 0 is refused whatever it wrote. Bytes past the declared total, or a total that falls short, are
 * refused as a size mismatch. Runs inside the extraction worker, where synchronous file I/O blocks
 * only the worker (digest.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { acceptContent, type CheckedFile, isTextExtension } from './content.js';
import { ContentDigest, HEAD_BYTES } from './digest.js';
import { extensionOfPath } from './names.js';
import { ParentFolders, writeAll } from './output-folder.js';
import type { Plan, PlannedFile } from './plan.js';
import { Refusal, RefusedNames } from './refusal.js';

/** A planned file being written: its descriptor (null for junk, read past), digest and bytes left. */
interface Open {
  planned: PlannedFile;
  dest: string;
  fd: number | null;
  digest: ContentDigest | null;
  left: number;
}

export class ExtractedFiles {
  readonly #files: CheckedFile[] = [];
  readonly #executables = new RefusedNames('executable');
  /** Every file the listing declared, in its order: the plan's files, and junk (not written). */
  readonly #queue: { planned: PlannedFile; write: boolean }[];
  #next = 0;
  #open: Open | null = null;
  readonly #folders = new ParentFolders();
  readonly #head = Buffer.allocUnsafeSlow(HEAD_BYTES);

  constructor(
    private readonly outDir: string,
    plan: Plan,
  ) {
    this.#queue = [
      ...plan.files.map((planned) => ({ planned, write: true })),
      ...plan.junk.map((planned) => ({ planned, write: false })),
    ].sort((a, b) => a.planned.index - b.planned.index);
  }

  /** Takes `length` bytes of 7-Zip's output at `offset` of its memory (a view, used at once). */
  write(memory: Int8Array, offset: number, length: number): void {
    let at = memory.byteOffset + offset;
    let left = length;
    while (left > 0) {
      const open = this.#current();
      const n = Math.min(left, open.left);
      if (open.fd !== null) {
        const chunk = Buffer.from(memory.buffer, at, n);
        open.digest!.update(chunk);
        writeAll(open.fd, chunk);
      }
      open.left -= n;
      at += n;
      left -= n;
      if (open.left === 0) this.#finish(open);
    }
  }

  /**
   * 7-Zip has ended with success: every declared byte must have come (the empty files after the
   * last one are made now). Returns the files, in the listing's order.
   */
  end(): CheckedFile[] {
    if (this.#open) throw new Refusal('sizeMismatch');
    while (this.#next < this.#queue.length) {
      const next = this.#queue[this.#next++]!;
      if (next.planned.size !== 0) throw new Refusal('sizeMismatch');
      this.#start(next);
    }
    this.#executables.throwIfAny();
    return this.#files;
  }

  /** Closes a file left open by a run that failed. */
  close(): void {
    if (this.#open?.fd != null) fs.closeSync(this.#open.fd);
    this.#open = null;
  }

  /** The file the next byte belongs to: the open one, or the next with bytes (empty ones made on the way). */
  #current(): Open {
    while (!this.#open) {
      const next = this.#queue[this.#next++];
      // More bytes than the listing declared.
      if (!next) throw new Refusal('sizeMismatch');
      this.#start(next);
    }
    return this.#open;
  }

  /** Opens the next file of the listing (an empty one is made and finished at once). */
  #start({ planned, write }: { planned: PlannedFile; write: boolean }): void {
    const dest = path.join(this.outDir, ...planned.name.split('/'));
    const open: Open = { planned, dest, fd: null, digest: null, left: planned.size };
    if (write) {
      this.#folders.make(dest);
      // Data, not programs (the umask applies); new, as the output folder is.
      open.fd = fs.openSync(dest, 'wx', 0o644);
      const utf8 = isTextExtension(extensionOfPath(planned.path));
      open.digest = new ContentDigest({ utf8, crc32: false, headInto: this.#head });
    }
    this.#open = open;
    if (planned.size === 0) this.#finish(open);
  }

  #finish(open: Open): void {
    this.#open = null;
    if (open.fd === null) return;
    fs.closeSync(open.fd);
    // The head is this object's buffer: checked now, before the next file's bytes.
    const facts = open.digest!.finish();
    const { planned } = open;
    const checked = this.#executables.check(() =>
      acceptContent(planned.path, open.dest, facts, planned.downloadOnly),
    );
    if (checked) this.#files.push(checked);
  }
}
