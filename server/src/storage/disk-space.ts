/**
 * The data folder's disk (docs/decisions/faults.md "Disk full"): what a full disk looks like from each
 * writer (ENOSPC from the file system, SQLITE_FULL from SQLite), and how much space is left, for
 * /readyz and for the start-up message.
 */
import fs from 'node:fs';
import path from 'node:path';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The disk (or the user's quota) is full, whoever wrote: file system, SQLite, an ingest worker. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = codeOf(e);
    if (code && FULL_CODES.has(code)) return true;
  }
  return false;
}

/** An SQLite I/O failure (SQLITE_IOERR_*): on a full disk SQLite sometimes says only that. */
export function isStorageIoError(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN');
}

/**
 * Bytes an unprivileged process may still write on the disk holding `dir` (or, until the folder
 * is made by the first upload, its nearest existing parent).
 */
export async function freeBytes(dir: string): Promise<number> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      const s = await fs.promises.statfs(d);
      return s.bavail * s.bsize;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT' || path.dirname(d) === d) throw err;
    }
  }
}

export class LowDiskSpace extends Error {
  constructor(
    readonly free: number,
    readonly min: number,
  ) {
    super(`free disk space ${free} bytes is below MIN_FREE_DISK_BYTES (${min})`);
  }
}

/**
 * Free space on the data folder's disk against MIN_FREE_DISK_BYTES, measured at most once per
 * `cacheMs` (a readiness probe every second need not call statfs every time). A write that found
 * the disk full forgets the measurement, so the next probe sees it at once.
 */
export class DiskSpace {
  #measured: { at: number; free: number } | null = null;

  constructor(
    readonly dir: string,
    readonly minFreeBytes: number,
    private readonly cacheMs = 5_000,
  ) {}

  async free(): Promise<number> {
    const t = Date.now();
    if (this.#measured && t - this.#measured.at < this.cacheMs) return this.#measured.free;
    const free = await freeBytes(this.dir);
    this.#measured = { at: t, free };
    return free;
  }

  /** Throws LowDiskSpace when less than the threshold is left (0 turns the check off). */
  async check(): Promise<void> {
    if (this.minFreeBytes <= 0) return;
    const free = await this.free();
    if (free < this.minFreeBytes) throw new LowDiskSpace(free, this.minFreeBytes);
  }

  forget(): void {
    this.#measured = null;
  }
}

/**
 * The start-up message for a disk that is full (SQLite then may say only "disk I/O error"), or
 * null when the failure had another cause.
 */
export async function diskFullAtStart(err: unknown, dataDir: string): Promise<string | null> {
  if (!isDiskFull(err) && !isStorageIoError(err)) return null;
  const free = await freeBytes(dataDir).catch(() => null);
  // An I/O error with space left is something else (a broken disk): keep its own words.
  if (!isDiskFull(err) && (free === null || free > 1024 * 1024)) return null;
  return (
    `The disk is full: the data folder ${dataDir} has ${free ?? 'no'} bytes free ` +
    `(${codeOf(err) ?? 'ENOSPC'}). Free some space and start SiteHall again. / 磁盘空间已满，请清理后重新启动。`
  );
}
