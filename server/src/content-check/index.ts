/**
 * The content check of a deployment (docs/decisions/review.md "Content check"): what a reviewer should
 * look at before a site goes live, and what the uploader should fix. The files are read here,
 * within a per-file and a total byte budget; the scanning (analyze.ts: htmlparser2 for HTML and
 * SVG, acorn for JavaScript, the rules of rules.ts) runs in a worker thread under a time limit, so
 * hostile input never blocks the event loop. It never fails an upload: an unreadable file is
 * skipped, and a check that runs out of time says so in its report.
 *
 * A file whose scan is known (trace-cache.ts: same bytes, and same path where the scan read it,
 * checked before in this process or, for a large file, stored in the database by any check of
 * this version: docs/content-check.md "Stored traces") is not read: the worker replays its trace. Workers stay up between checks (a few, for a while), so a check
 * pays neither a thread's start nor cold code.
 */
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { ContentCheckReport } from '@sitehall/contracts';
import { heavyJobSlots, type SlotOwner, uploadWorkSlots } from '../domain/fair-slots.js';
import type { BlobStore } from '../storage/index.js';
import { KeptWorkers, startWorkerBeside } from '../workers/kept-workers.js';
import {
  type AnalyzeOptions,
  analyzeSite,
  CONTENT_CHECK_LIMITS,
  type FileText,
  HTML,
  isScanned,
  readsWhole,
  SCRIPT,
} from './analyze.js';
import type { FileTrace } from './context.js';
import { Collector } from './report.js';
import {
  checkVersion,
  keyOf,
  STORED_TRACE_MIN_BYTES,
  storedKey,
  TraceCache,
  type TraceStore,
  traceKeys,
} from './trace-cache.js';
import type { CheckJob, CheckReply, FileBytes, JobFiles } from './worker.js';

export { analyzeSite, CONTENT_CHECK_LIMITS, type FileText } from './analyze.js';
export {
  parseContentCheck,
  reportAsServed,
  riskRankOf,
  type ServedAs,
  summarizeContentCheck,
  usabilityFindings,
} from './report.js';
export { CHECK_VERSION, checkVersion, TraceCache, type TraceStore } from './trace-cache.js';
export { classifyUrl, missingLocal } from './urls.js';

/** One file of a site, from the ingest's temp files or from the blob store. */
export interface SiteFile {
  path: string;
  size: number;
  extension: string;
  /** The bytes' SHA-256, when known: then an earlier scan of the same file can stand for this one. */
  sha256?: string;
  /** The first maxBytes bytes (or the whole file when smaller). */
  read(maxBytes: number): Promise<Buffer>;
}

/** A file still on disk (the ingest's output, before it moves into the blob store). */
export function siteFileOnDisk(f: {
  path: string;
  size: number;
  extension: string;
  tempFile: string;
  sha256?: string;
}): SiteFile {
  return {
    path: f.path,
    size: f.size,
    extension: f.extension,
    ...(f.sha256 ? { sha256: f.sha256 } : {}),
    async read(maxBytes) {
      const handle = await fs.promises.open(f.tempFile, 'r');
      try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(maxBytes), 0, maxBytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}

/** A stored file (checking a deployment made before the check existed). */
export function siteFileInStore(
  store: BlobStore,
  f: { path: string; size: number; extension: string; sha256: string },
): SiteFile {
  return {
    path: f.path,
    size: Number(f.size),
    extension: f.extension,
    sha256: f.sha256,
    async read(maxBytes) {
      if (maxBytes <= 0) return Buffer.alloc(0);
      const chunks: Buffer[] = [];
      for await (const chunk of await store.read(f.sha256, { start: 0, end: maxBytes - 1 })) {
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
  };
}

export interface ContentCheckOptions extends AnalyzeOptions {
  /** Read budget per file and in total (tests lower them). */
  maxBytesPerFile?: number;
  maxBytesTotal?: number;
  /** The whole check's time limit in the worker. */
  timeoutMs?: number;
  /** Earlier scans to replay and keep (default: this process's; null: scan every file). */
  traces?: TraceCache | null;
  /**
   * Traces kept beyond this process (the database's, services/content-traces.ts): looked up for
   * files the process has not scanned, and given the new traces of large files. Unused when
   * `traces` is null.
   */
  store?: TraceStore | null;
  /** The check version stored traces are keyed by (default: this build's, checkVersion()). */
  checkVersion?: string;
  /** Whose check this is: checks of different accounts share the workers fairly. */
  account?: SlotOwner;
}

/** This process's traces: every check shares them. */
const sharedTraces = new TraceCache();
/** Checks of one site: with traces, with the stale ones scanned, then (never needed so far) none. */
const MAX_ATTEMPTS = 3;

/** Time for the whole check; each file also has its own (CONTENT_CHECK_LIMITS.maxMsPerFile). */
const DEFAULT_TIMEOUT_MS = 60_000;
/** The share of the whole check's time after which the files still being scanned stop. */
const STOP_SCANS_AT = 0.8;

export async function checkSiteContent(
  files: readonly SiteFile[],
  entryFile: string | null,
  opts: ContentCheckOptions = {},
): Promise<ContentCheckReport> {
  const traces = opts.traces === undefined ? sharedTraces : opts.traces;
  const store = traces ? (opts.store ?? null) : null;
  const version = opts.checkVersion ?? checkVersion();
  const plan = readPlan(files, opts);
  const keys = files.map((f, i) =>
    traces && f.sha256 && plan[i]! > 0
      ? traceKeys({ ...f, sha256: f.sha256 }, plan[i]!, !!opts.rootPathsWork, version)
      : null,
  );
  const known = (i: number) => traces!.get(keys[i]!.free) ?? traces!.get(keys[i]!.bound);
  if (store) await loadStored(store, keys, plan, known, traces!);
  const toStore = new Map<string, string>();
  const rescan = new Set<number>();
  for (let attempt = 1; ; attempt++) {
    // An old trace holds unless what it asked of the site is answered otherwise now (a linked file
    // gone, an included script changed): those files are read and scanned on the next attempt.
    const replay = (i: number) =>
      attempt < MAX_ATTEMPTS && !rescan.has(i) && keys[i] ? known(i) : undefined;
    // The files are read once the slot is this check's: a check waiting its turn holds none of
    // its bytes, and an account's queued uploads take no memory or disk reads from the others'.
    const release = await slots.acquire(opts.account ?? 'system');
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let reply: Extract<CheckReply, { ok: true }>;
    try {
      const read = await readSite(files, plan, replay, (i) => keys[i] !== null);
      const job: CheckJob = {
        files: jobFiles(read),
        entryFile,
        opts: {
          rootPathsWork: opts.rootPathsWork,
          maxMsPerFile: opts.maxMsPerFile,
          // Per-file budgets count CPU time; the files still being scanned by then stop, so that the
          // check answers (with what it found) before its own limit ends the worker.
          stopsAt: Date.now() + STOP_SCANS_AT * timeoutMs,
        },
      };
      try {
        reply = await runInWorker(job, timeoutMs);
      } catch {
        // What is left to say without the files' text: the bytes went to the worker, every other
        // field of `read` is as it was (a copy of 5,000 files made on every check, for this case only).
        const skeleton = read.map(({ bytes: _, keep: _k, trace: _t, ...f }) => ({ ...f, text: null }));
        return incompleteReport(skeleton, entryFile, opts);
      }
    } finally {
      release();
    }
    // Only traces the worker made now from the bytes it was given: a replayed one is never sent back.
    for (const [i, trace, usesPath] of reply.traces) {
      const key = keyOf(keys[i]!, usesPath);
      traces?.set(key, trace);
      if (store && plan[i]! >= STORED_TRACE_MIN_BYTES) toStore.set(storedKey(key), trace);
    }
    if (reply.stale.length === 0) {
      // A store that fails costs the next check a scan, never this upload.
      if (store && toStore.size > 0) {
        const rows = [...toStore].map(([key, trace]) => ({ key, trace }));
        await store.put(rows, version).catch(() => undefined);
      }
      return reply.report;
    }
    for (const i of reply.stale) {
      rescan.add(i);
      traces?.delete(keys[i]!.free);
      traces?.delete(keys[i]!.bound);
    }
  }
}

/**
 * Puts into the process's cache the stored traces of the large files it has none of (one lookup
 * for the whole site). A row that does not read as a trace, or a lookup that fails, is a scan.
 */
async function loadStored(
  store: TraceStore,
  keys: ReadonlyArray<{ free: string; bound: string } | null>,
  plan: readonly number[],
  known: (i: number) => string | undefined,
  traces: TraceCache,
): Promise<void> {
  const wanted = new Map<string, { key: string; usesPath: boolean }>();
  keys.forEach((k, i) => {
    if (!k || plan[i]! < STORED_TRACE_MIN_BYTES || known(i)) return;
    wanted.set(storedKey(k.free), { key: k.free, usesPath: false });
    wanted.set(storedKey(k.bound), { key: k.bound, usesPath: true });
  });
  if (wanted.size === 0) return;
  let found: Map<string, string>;
  try {
    found = await store.get([...wanted.keys()]);
  } catch {
    return;
  }
  for (const [digest, text] of found) {
    const want = wanted.get(digest);
    const trace = want ? readTrace(text) : undefined;
    // Under the key its own scan chose (keyOf), or it is not replayed.
    if (want && trace && trace.usesPath === want.usesPath) traces.set(want.key, text);
  }
}

/** A stored trace's JSON as a trace, or undefined when it is not one. */
function readTrace(text: string): FileTrace | undefined {
  try {
    const t = JSON.parse(text) as FileTrace;
    const ok =
      Array.isArray(t.events) &&
      Array.isArray(t.paths) &&
      Array.isArray(t.scripts) &&
      (t.facts === null || typeof t.facts === 'string') &&
      typeof t.usesPath === 'boolean';
    return ok ? t : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One heavy job per CPU at once, checks and extractions together (each check's worker may take up
 * to 512 MB), shared fairly between accounts (domain/fair-slots.ts): one account runs at most half
 * of them, an account with none running may start one beyond them (up to twice as many in all),
 * and the waiting ones start round robin between accounts.
 */
const slots = uploadWorkSlots;
const { capacity: SLOTS, spare: SPARE_SLOTS } = heavyJobSlots();
/** Workers alive at most, busy and parked: one per slot. */
const MAX_LIVE = SLOTS + SPARE_SLOTS;

/** Files read at once: a site is thousands of small files, each an open, a read and a close. */
const READ_CONCURRENCY = 16;

/**
 * How many bytes of each file the check reads: scanned types only, within the per-file and total
 * budgets. The total is shared out pages and scripts first, each class smallest first: a small
 * hostile script can't be pushed past the budget by large files named before it (an outside review
 * hid one behind 37 files of 1.9 MB). The order depends only on the files, so reading in parallel
 * reads the same bytes.
 */
function readPlan(files: readonly SiteFile[], opts: ContentCheckOptions): number[] {
  const perFile = opts.maxBytesPerFile ?? CONTENT_CHECK_LIMITS.maxBytesPerFile;
  let budget = opts.maxBytesTotal ?? CONTENT_CHECK_LIMITS.maxBytesTotal;
  const plan = files.map(() => 0);
  // What runs or is opened first: pages and scripts, then the rest (worked out once per file, not
  // in each comparison).
  const rank = files.map((f) => (HTML.has(f.extension) || SCRIPT.has(f.extension) ? 0 : 1));
  const order = [...files.keys()]
    .filter((i) => isScanned(files[i]!.extension))
    .sort((a, b) => rank[a]! - rank[b]! || files[a]!.size - files[b]!.size || a - b);
  for (const i of order) {
    const f = files[i]!;
    const want = Math.min(
      f.size,
      readsWhole(f.extension) ? perFile : CONTENT_CHECK_LIMITS.headBytes,
      Math.max(budget, 0),
    );
    budget -= want;
    plan[i] = want;
  }
  return plan;
}

/**
 * Each scanned file's bytes as the plan says, in the files' order; a file with a trace to replay
 * is not read (only whether its read would be whole is worked out).
 */
async function readSite(
  files: readonly SiteFile[],
  plan: readonly number[],
  traceOf: (i: number) => string | undefined,
  keep: (i: number) => boolean,
): Promise<FileBytes[]> {
  const out: FileBytes[] = files.map((f, i) => {
    const trace = traceOf(i);
    return {
      path: f.path,
      size: f.size,
      extension: f.extension,
      bytes: null,
      complete: trace ? plan[i]! >= f.size : false,
      keep: keep(i),
      ...(trace ? { trace } : {}),
    };
  });
  let next = 0;
  const reader = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const f = files[i]!;
      const want = plan[i]!;
      if (!isScanned(f.extension) || (want <= 0 && f.size > 0) || out[i]!.trace) continue;
      try {
        const read = await f.read(want);
        out[i] = { ...out[i]!, bytes: transferable(read), complete: read.length >= f.size };
      } catch {
        // An unreadable file is skipped, as if it were not text.
        out[i] = { ...out[i]!, extension: '', keep: false };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, reader));
  return out;
}

/** The files of a job field by field (worker.ts JobFiles). */
function jobFiles(files: readonly FileBytes[]): JobFiles {
  const out: JobFiles = { path: [], size: [], extension: [], complete: [], keep: [], trace: [], bytes: [] };
  for (const f of files) {
    out.path.push(f.path);
    out.size.push(f.size);
    out.extension.push(f.extension);
    out.complete.push(f.complete);
    out.keep.push(f.keep);
    out.trace.push(f.trace ?? null);
    out.bytes.push(f.bytes);
  }
  return out;
}

/**
 * Bytes whose memory can be handed to the worker: a read into its own buffer as is (a disk read is
 * one), else a copy (a small store read may sit in Node's shared buffer pool, which must not move).
 */
function transferable(read: Buffer): Uint8Array {
  const own = read.byteOffset === 0 && read.byteLength === read.buffer.byteLength;
  return own ? new Uint8Array(read.buffer, 0, read.byteLength) : new Uint8Array(read);
}

/** The worker ran out of time or failed: a report that says so, with what needs no scanning. */
function incompleteReport(
  texts: FileText[],
  entryFile: string | null,
  opts: AnalyzeOptions,
): ContentCheckReport {
  const skeleton = analyzeSite(texts, entryFile, opts);
  const out = new Collector();
  out.add('site.check-incomplete', { file: '全部文件' }, { file: null, line: null });
  const extra = out.report({
    largest: skeleton.largest_files,
    scanned: 0,
    partial: texts.filter((f) => isScanned(f.extension) && f.size > 0).map((f) => f.path),
  });
  return {
    ...extra,
    findings: [...extra.findings, ...skeleton.findings],
    usability_count: skeleton.usability_count,
  };
}

/** The check's kept workers (workers/kept-workers.ts): idle ones end after 30 s, each runs 500 checks. */
const workers = new KeptWorkers({
  start: () =>
    startWorkerBeside(import.meta.url, 'worker', { resourceLimits: { maxOldGenerationSizeMb: 512 } }),
  idleMs: 30_000,
  maxJobs: 500,
});

/**
 * The check's worker threads now: `busy` ones run a check. A check that ran out of time has ended
 * its worker (terminated, not asked to stop) before it answers, so it is counted in neither.
 */
export function contentCheckWorkers(): { busy: number; parked: number } {
  return { busy: workers.live - workers.parked, parked: workers.parked };
}

/**
 * A parked worker, else a new one. Taking the last parked worker while other checks run starts a
 * spare (while there are free slots for it), so that the next check, typically an account's with
 * nothing running that takes a spare slot, finds a worker ready: a worker's start under a busy
 * machine took seconds, which was most of a newcomer's wait (docs/decisions/review.md "One account can't
 * stall another's uploads"). A lone check starts none: nobody is waiting, and a second start
 * would take CPU from it.
 */
function takeWorker(): Worker {
  const othersBusy = workers.live - workers.parked > 0;
  const worker = workers.take();
  if (othersBusy && workers.parked === 0 && workers.live < MAX_LIVE) workers.park(workers.start(), false);
  return worker;
}

function runInWorker(job: CheckJob, timeoutMs: number): Promise<Extract<CheckReply, { ok: true }>> {
  const transferList = job.files.bytes.flatMap((bytes) => (bytes ? [bytes.buffer as ArrayBuffer] : []));
  const worker = takeWorker();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    // A worker that failed or ran out of time is ended: nothing of it is reused.
    const fail = (error: Error) => {
      done();
      worker.terminate().then(
        () => reject(error),
        () => reject(error),
      );
    };
    const onMessage = (reply: CheckReply) => {
      done();
      workers.park(worker);
      if (reply.ok) resolve(reply);
      else reject(new Error(reply.error));
    };
    const onError = (error: Error) => fail(error);
    const onExit = (code: number) => {
      done();
      reject(new Error(`content check worker exited with ${code}`));
    };
    const timer = setTimeout(() => fail(new Error('content check timed out')), timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    try {
      worker.postMessage(job, transferList);
    } catch (error) {
      // A job that can't be sent (nothing here should make one) ends this worker, not the check's caller.
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
