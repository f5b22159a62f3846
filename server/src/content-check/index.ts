/**
 * The content check of a deployment (docs/decisions.md "Content check"): what a reviewer should
 * look at before a site goes live, and what the uploader should fix. The files are read here,
 * within a per-file and a total byte budget; the scanning (analyze.ts: htmlparser2 for HTML and
 * SVG, acorn for JavaScript, the rules of rules.ts) runs in a worker thread under a time limit, so
 * hostile input never blocks the event loop. It never fails an upload: an unreadable file is
 * skipped, and a check that runs out of time says so in its report.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ContentCheckReport } from '@sitehall/contracts';
import type { BlobStore } from '../storage/index.js';
import {
  type AnalyzeOptions,
  analyzeSite,
  CONTENT_CHECK_LIMITS,
  type FileText,
  isScanned,
  readsWhole,
} from './analyze.js';
import { Collector } from './report.js';
import type { CheckJob, FileBytes } from './worker.js';

export { analyzeSite, CONTENT_CHECK_LIMITS, type FileText } from './analyze.js';
export {
  parseContentCheck,
  riskRankOf,
  summarizeContentCheck,
  usabilityFindings,
} from './report.js';
export { classifyUrl, missingLocal } from './urls.js';

/** One file of a site, from the ingest's temp files or from the blob store. */
export interface SiteFile {
  path: string;
  size: number;
  extension: string;
  /** The first maxBytes bytes (or the whole file when smaller). */
  read(maxBytes: number): Promise<Buffer>;
}

/** A file still on disk (the ingest's output, before it moves into the blob store). */
export function siteFileOnDisk(f: {
  path: string;
  size: number;
  extension: string;
  tempFile: string;
}): SiteFile {
  return {
    path: f.path,
    size: f.size,
    extension: f.extension,
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
}

/** Time for the whole check; each file also has its own (CONTENT_CHECK_LIMITS.maxMsPerFile). */
const DEFAULT_TIMEOUT_MS = 60_000;

export async function checkSiteContent(
  files: readonly SiteFile[],
  entryFile: string | null,
  opts: ContentCheckOptions = {},
): Promise<ContentCheckReport> {
  const read = await readSite(files, opts);
  const job: CheckJob = {
    files: read,
    entryFile,
    opts: { rootPathsWork: opts.rootPathsWork, maxMsPerFile: opts.maxMsPerFile },
  };
  // What is left to say without the files' text, should the worker fail (taken before the bytes go).
  const skeleton = read.map(({ bytes: _, ...f }) => ({ ...f, text: null }));
  const release = await acquireSlot();
  try {
    return await runInWorker(job, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } catch {
    return incompleteReport(skeleton, entryFile, opts);
  } finally {
    release();
  }
}

/** At most one check per CPU at once (each worker may take up to 512 MB); the rest wait their turn. */
const MAX_RUNNING = Math.max(1, os.availableParallelism());
let running = 0;
const waiting: Array<() => void> = [];

function acquireSlot(): Promise<() => void> {
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return new Promise((resolve) => {
    const start = () => {
      running++;
      resolve(release);
    };
    if (running < MAX_RUNNING) start();
    else waiting.push(start);
  });
}

/** Files read at once: a site is thousands of small files, each an open, a read and a close. */
const READ_CONCURRENCY = 16;

/** Each scanned file's bytes, within the per-file and total read budgets (in the files' order). */
async function readSite(files: readonly SiteFile[], opts: ContentCheckOptions): Promise<FileBytes[]> {
  const perFile = opts.maxBytesPerFile ?? CONTENT_CHECK_LIMITS.maxBytesPerFile;
  let budget = opts.maxBytesTotal ?? CONTENT_CHECK_LIMITS.maxBytesTotal;
  // The budget is shared out first, in order, so reading in parallel reads the same bytes.
  const plan = files.map((f) => {
    if (!isScanned(f.extension)) return 0;
    const want = Math.min(
      f.size,
      readsWhole(f.extension) ? perFile : CONTENT_CHECK_LIMITS.headBytes,
      Math.max(budget, 0),
    );
    budget -= want;
    return want;
  });
  const out: FileBytes[] = files.map((f) => ({
    path: f.path,
    size: f.size,
    extension: f.extension,
    bytes: null,
    complete: false,
  }));
  let next = 0;
  const reader = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const f = files[i]!;
      const want = plan[i]!;
      if (!isScanned(f.extension) || (want <= 0 && f.size > 0)) continue;
      try {
        const read = await f.read(want);
        out[i] = { ...out[i]!, bytes: transferable(read), complete: read.length >= f.size };
      } catch {
        // An unreadable file is skipped, as if it were not text.
        out[i] = { ...out[i]!, extension: '' };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, reader));
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

const fromSource = import.meta.url.endsWith('.ts');

/**
 * Compiled: the worker is worker.js next to this file. From the TypeScript source (Vitest, `tsx
 * watch`) a tiny ES module bootstrap registers tsx's loader inside the worker first (as
 * ingest/run-worker.ts does: `--import tsx` does not reach worker threads on Node 20).
 */
function startWorker(job: CheckJob): Worker {
  const transferList = job.files.flatMap((f) => (f.bytes ? [f.bytes.buffer as ArrayBuffer] : []));
  const options = { workerData: job, transferList, resourceLimits: { maxOldGenerationSizeMb: 512 } };
  if (!fromSource) return new Worker(new URL('./worker.js', import.meta.url), options);
  const tsxApi = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const bootstrap = [
    `import { register } from ${JSON.stringify(pathToFileURL(tsxApi).href)};`,
    'register();',
    `await import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), options);
}

function runInWorker(job: CheckJob, timeoutMs: number): Promise<ContentCheckReport> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(job);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate().then(outcome, outcome);
    };
    const timer = setTimeout(() => settle(() => reject(new Error('content check timed out'))), timeoutMs);
    worker.on('message', (message: { ok: true; report: ContentCheckReport } | { ok: false; error: string }) =>
      settle(() => (message.ok ? resolve(message.report) : reject(new Error(message.error)))),
    );
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`content check worker exited with ${code}`))));
  });
}
