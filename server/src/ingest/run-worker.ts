/**
 * Runs one ingest job in a worker thread with a time limit and an abort signal; either one
 * terminates the worker (WebAssembly included) before the promise settles, so the caller can clean
 * up knowing nothing is still writing. At most one job per CPU runs at once, shared fairly between
 * accounts; the rest queue.
 *
 * An archive's job (zip, 7z, RAR) runs in a kept worker: one that answered its last job (files or
 * a refusal) waits, unreferenced, for the next for a while, as the content check's workers do. A
 * worker's start was 100-250 ms of CPU, more than the rest of a replayed 24 MB library upload's
 * ingest (docs/benchmarks.md "Large bundles"), and a new worker optimises 7-Zip's JavaScript
 * around the WebAssembly again, ≈0.4 s of a 5,000-file 7z ("A 7-Zip worker kept"); a 7-Zip job
 * leaves its memory collected (extract-worker.ts). Loose files keep a worker of their own, ended
 * after the job; a kept worker that fails or runs out of time is ended too, never reused.
 */
import type { Worker } from 'node:worker_threads';
import { heavyJobSlots, type SlotOwner, uploadWorkSlots } from '../domain/fair-slots.js';
import { KeptWorkers, startWorkerBeside } from '../workers/kept-workers.js';
import type { CheckedFile } from './content.js';
import type { IngestJob, StoredAnswer, StoredQuery, WorkerReply } from './extract-worker.js';
import { Refusal, type RefusalReason } from './refusal.js';
import { compileSevenZip, type WasmModule } from './sevenzip-code.js';

/** Heap for the worker's JavaScript (listings, buffers); 7-Zip's WebAssembly memory is apart. */
const WORKER_HEAP_MB = 256;
/**
 * The worker's young generation. Everything it allocates per entry dies young; V8's default
 * (up to 48 MB) only let garbage pile up: with 8 MB a 5,000-file zip peaked ~20 MB lower
 * (docs/benchmarks.md) for the same CPU time.
 */
const WORKER_YOUNG_MB = 8;

/** extract-worker.js beside this file (its .ts from source); `job` is null for a kept worker. */
function startWorker(job: IngestJob | null): Worker {
  return startWorkerBeside(import.meta.url, 'extract-worker', {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  });
}

/** Shared fairly between accounts, with the content check (domain/fair-slots.ts). */
const slots = uploadWorkSlots;

/** Jobs a kept worker may run: archives (zips, and 7z and RAR through 7-Zip's WebAssembly). */
const keptKind = (job: IngestJob) => job.kind === 'archive';
/** Kept workers: one parked per slot at most, each waiting 30 s and running 200 jobs at most. */
const kept = new KeptWorkers({
  start: () => startWorker(null),
  maxParked: heavyJobSlots().capacity,
  idleMs: 30_000,
  maxJobs: 200,
});

let sevenZip: Promise<WasmModule> | null = null;
let sevenZipCompilations = 0;
/**
 * 7-Zip compiled once for the process and kept: each 7-Zip job's worker gets it, so the code V8
 * optimised for one archive serves the next (sevenzip-code.ts). A failed compile is tried again
 * by the next job.
 */
function sharedSevenZip(): Promise<WasmModule> {
  if (!sevenZip) {
    sevenZipCompilations++;
    sevenZip = compileSevenZip();
    sevenZip.catch(() => {
      sevenZip = null;
    });
  }
  return sevenZip;
}

/** How many times this process compiled 7-Zip (tests). */
export function sevenZipCompileCount(): number {
  return sevenZipCompilations;
}

/** Ingest workers waiting for a job (tests). */
export function parkedIngestWorkers(): number {
  return kept.parked;
}

export interface WorkerRunOptions {
  timeoutMs: number;
  /** Told to the user when the time is up. */
  timeoutReason: RefusalReason;
  signal?: AbortSignal;
  /** Whose upload this is: jobs of different accounts share the workers fairly. */
  account?: SlotOwner;
  /**
   * Answers the worker's questions (a zip job with `ask`): which of these contents the store
   * holds, leased for the upload. A failure answers "none" (the entries are written).
   */
  stored?: (hashes: string[]) => Promise<string[]>;
}

export async function runIngestJob(job: IngestJob, opts: WorkerRunOptions): Promise<CheckedFile[]> {
  opts.signal?.throwIfAborted();
  const release = await slots.acquire(opts.account ?? 'system', opts.signal);
  try {
    if (job.kind === 'archive' && job.reader === '7z-wasm')
      job = { ...job, sevenZipCode: await sharedSevenZip() };
    return await runInWorker(job, opts);
  } finally {
    release();
  }
}

function runInWorker(
  job: IngestJob,
  { timeoutMs, timeoutReason, signal, stored }: WorkerRunOptions,
): Promise<CheckedFile[]> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const reusable = keptKind(job);
    const worker = reusable ? kept.take() : startWorker(job);
    let settled = false;
    /** Ends the job: the worker is terminated before `outcome`, or (answered, kept) parked. */
    const settle = (outcome: () => void, reuse = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reuse) {
        kept.park(worker);
        outcome();
      } else worker.terminate().then(outcome, outcome);
    };
    const timer = setTimeout(() => settle(() => reject(new Refusal(timeoutReason))), timeoutMs);
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    const answer = (query: StoredQuery) => {
      const held = stored ? stored(query.hashes).catch(() => []) : Promise.resolve([]);
      void held.then((h) => {
        if (!settled) worker.postMessage({ answer: query.ask, held: h } satisfies StoredAnswer);
      });
    };
    const onMessage = (message: WorkerReply | StoredQuery) =>
      'ask' in message
        ? answer(message)
        : settle(
            () => {
              if (message.ok) resolve(message.files);
              else if ('refusal' in message)
                reject(new Refusal(message.refusal.reason, message.refusal.values));
              else {
                // The code (ENOSPC: the disk is full) decides the answer; keep it across the thread.
                reject(
                  Object.assign(new Error(`ingest worker failed: ${message.error}`), { code: message.code }),
                );
              }
            },
            // A job that ended in files or a refusal leaves nothing running: its worker may take the next.
            reusable && (message.ok || 'refusal' in message),
          );
    const onError = (err: Error & { code?: string }) =>
      settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Refusal('extractFailed') : err));
    const onExit = (code: number) =>
      settle(() => reject(new Error(`ingest worker exited (${code}) without an answer`)));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    if (reusable) worker.postMessage(job);
  });
}
