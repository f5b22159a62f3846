/**
 * What 7-Zip's listing leaves out of a RAR 4 archive: the Unix mode of entries made on Unix. 7-Zip
 * lists a RAR 4 symbolic link (host OS Unix, mode S_IFLNK, the link target as its data) as an
 * ordinary file with no attributes, so the block headers are walked here and such entries refused
 * before 7-Zip runs. RAR 5 needs no walk: 7-Zip lists its links and modes (sevenzip-archive.ts).
 * Format: RARLAB's technote for RAR 2.9-4.x. Runs in the extraction worker (synchronous reads).
 */
import fs from 'node:fs';
import { displayName } from './names.js';
import { Refusal } from './refusal.js';

const SIGNATURE = Buffer.from('Rar!\x1a\x07\x00', 'latin1');
const BASE_HEADER_BYTES = 7;
const ARCHIVE_HEADER = 0x73;
const FILE_HEADER = 0x74;
const END_OF_ARCHIVE = 0x7b;
/** Archive header flag: every other header is encrypted (7-Zip then reports the password). */
const MHD_PASSWORD = 0x80;
/** Block flag: ADD_SIZE (for a file, PACK_SIZE) follows the base header. */
const LONG_BLOCK = 0x8000;
/** File header flag: 64-bit sizes (HIGH_PACK_SIZE, HIGH_UNP_SIZE before the name). */
const LHD_LARGE = 0x100;
const HOST_UNIX = 3;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * Refuses (notRegularFile) the first entry made on Unix whose mode is not a regular file or a
 * folder: a symbolic link, a device, a FIFO, a socket. Headers it cannot read are left to 7-Zip,
 * which reports the archive as damaged or encrypted; `maxBlocks` bounds the walk.
 */
export function refuseRar4SpecialEntries(archivePath: string, maxBlocks: number): void {
  const fd = fs.openSync(archivePath, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(64 * 1024);
    if (read(fd, head, 0, SIGNATURE.length).compare(SIGNATURE) !== 0) return;
    let position = SIGNATURE.length;
    for (let blocks = 0; position + BASE_HEADER_BYTES <= size; blocks++) {
      if (blocks >= maxBlocks) throw new Refusal('corrupt');
      const base = read(fd, head, position, BASE_HEADER_BYTES);
      const type = base.readUInt8(2);
      const flags = base.readUInt16LE(3);
      const headerSize = base.readUInt16LE(5);
      if (headerSize < BASE_HEADER_BYTES || type === END_OF_ARCHIVE) return;
      if (type === ARCHIVE_HEADER && flags & MHD_PASSWORD) return;
      const header = read(fd, head, position, headerSize);
      if (header.length < headerSize) return;
      let next = position + headerSize;
      // A file header always has PACK_SIZE (unrar reads it whatever the flag says).
      if (flags & LONG_BLOCK || type === FILE_HEADER) {
        if (headerSize < 11) return;
        next += header.readUInt32LE(7);
      }
      if (type === FILE_HEADER) {
        const large = (flags & LHD_LARGE) !== 0;
        const nameAt = large ? 40 : 32;
        if (headerSize < nameAt) return;
        if (large) next += header.readUInt32LE(32) * 2 ** 32;
        const hostOs = header.readUInt8(15);
        const mode = header.readUInt32LE(28) & S_IFMT;
        if (hostOs === HOST_UNIX && mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) {
          throw new Refusal('notRegularFile', { name: entryName(header, nameAt) });
        }
      }
      position = next;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** `length` bytes at `position` (fewer at the end of the file), in `buffer`. */
function read(fd: number, buffer: Buffer, position: number, length: number): Buffer {
  const n = fs.readSync(fd, buffer, 0, Math.min(length, buffer.length), position);
  return buffer.subarray(0, n);
}

/**
 * The entry's name for the message: RAR 4 stores it in the archive's code page, or (Unicode flag)
 * as that name, a NUL, and a compact Unicode form; Unix RAR writers use UTF-8 for the first part.
 */
function entryName(header: Buffer, nameAt: number): string {
  const raw = header.subarray(nameAt, nameAt + header.readUInt16LE(26));
  const nul = raw.indexOf(0);
  return displayName((nul === -1 ? raw : raw.subarray(0, nul)).toString('utf8').replaceAll('\\', '/'));
}
