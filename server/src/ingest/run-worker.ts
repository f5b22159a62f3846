/**
 * Runs one ingest job in a worker thread with a time limit and an abort signal; either one
 * terminates the worker (WebAssembly included) before the promise settles, so the caller can clean
 * up knowing nothing is still writing. At most one job per CPU runs at once, shared fairly between
 * accounts; the rest queue.
 *
 * A zip's job runs in a kept worker: one that answered its last job (files or a
 * refusal) waits, unreferenced, for the next for a while, as the content check's workers do. A
 * worker's start was 100-250 ms of CPU, more than the rest of a replayed 24 MB library upload's
 * ingest (docs/benchmarks.md "Large bundles"). 7-Zip's jobs (WebAssembly, its memory grown to the
 * archive's needs) keep a worker of their own, ended after the job; a kept worker that fails or
 * runs out of time is ended too, never reused.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { heavyJobSlots, type SlotOwner, uploadWorkSlots } from '../domain/fair-slots.js';
import type { CheckedFile } from './content.js';
import type { IngestJob, WorkerReply } from './extract-worker.js';
import { Refusal, type RefusalReason } from './refusal.js';

/** Heap for the worker's JavaScript (listings, buffers); 7-Zip's WebAssembly memory is apart. */
const WORKER_HEAP_MB = 256;
/**
 * The worker's young generation. Everything it allocates per entry dies young; V8's default
 * (up to 48 MB) only let garbage pile up: with 8 MB a 5,000-file zip peaked ~20 MB lower
 * (docs/benchmarks.md) for the same CPU time.
 */
const WORKER_YOUNG_MB = 8;

const fromSource = import.meta.url.endsWith('.ts');

/**
 * Compiled: the worker is extract-worker.js next to this file. From the TypeScript source (Vitest,
 * `tsx watch`) the worker must load .ts too. `execArgv: ['--import', 'tsx']` does not apply to
 * worker threads on Node 20, so a tiny ES module bootstrap registers tsx's loader inside the worker
 * and then imports extract-worker.ts.
 */
function startWorker(job: IngestJob | null): Worker {
  const options = {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  };
  if (!fromSource) return new Worker(new URL('./extract-worker.js', import.meta.url), options);
  const entry = new URL('./extract-worker.ts', import.meta.url).href;
  const bootstrap = [
    `import { register } from ${JSON.stringify(tsxApiUrl())};`,
    'register();',
    `await import(${JSON.stringify(entry)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), options);
}

/** tsx's ES module API (its CommonJS build cannot register the ES module loader). */
function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
}

/** Shared fairly between accounts, with the content check (domain/fair-slots.ts). */
const slots = uploadWorkSlots;

/** Jobs a kept worker may run: zips (yauzl, JavaScript), never 7-Zip's WebAssembly. */
const keptKind = (job: IngestJob) => job.kind === 'archive' && job.reader === 'yauzl';
/** Kept workers waiting at most (one per slot), how long one waits, and how many jobs one runs. */
const MAX_PARKED = heavyJobSlots().capacity;
const IDLE_MS = 30_000;
const MAX_JOBS_PER_WORKER = 200;
const parked: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];
const jobsDone = new WeakMap<Worker, number>();

function unpark(worker: Worker) {
  const at = parked.findIndex((p) => p.worker === worker);
  if (at === -1) return;
  clearTimeout(parked[at]!.timer);
  parked.splice(at, 1);
}

/** A kept worker waiting for a job, else a new one. */
function takeKept(): Worker {
  const waiting = parked.pop();
  if (waiting) {
    clearTimeout(waiting.timer);
    waiting.worker.ref();
    return waiting.worker;
  }
  const worker = startWorker(null);
  // A waiting worker's failure only drops it (a busy one's is its job's, below).
  worker.on('error', () => undefined);
  worker.on('exit', () => unpark(worker));
  return worker;
}

/** Keeps a worker that answered its job for the next one (unreferenced: it never holds the exit). */
function park(worker: Worker) {
  const jobs = (jobsDone.get(worker) ?? 0) + 1;
  jobsDone.set(worker, jobs);
  if (jobs >= MAX_JOBS_PER_WORKER || parked.length >= MAX_PARKED) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const timer = setTimeout(() => {
    unpark(worker);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  parked.push({ worker, timer });
}

/** Ingest workers waiting for a job (tests). */
export function parkedIngestWorkers(): number {
  return parked.length;
}

export interface WorkerRunOptions {
  timeoutMs: number;
  /** Told to the user when the time is up. */
  timeoutReason: RefusalReason;
  signal?: AbortSignal;
  /** Whose upload this is: jobs of different accounts share the workers fairly. */
  account?: SlotOwner;
}

export async function runIngestJob(job: IngestJob, opts: WorkerRunOptions): Promise<CheckedFile[]> {
  opts.signal?.throwIfAborted();
  const release = await slots.acquire(opts.account ?? 'system', opts.signal);
  try {
    return await runInWorker(job, opts);
  } finally {
    release();
  }
}

function runInWorker(
  job: IngestJob,
  { timeoutMs, timeoutReason, signal }: WorkerRunOptions,
): Promise<CheckedFile[]> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const kept = keptKind(job);
    const worker = kept ? takeKept() : startWorker(job);
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
        park(worker);
        outcome();
      } else worker.terminate().then(outcome, outcome);
    };
    const timer = setTimeout(() => settle(() => reject(new Refusal(timeoutReason))), timeoutMs);
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    const onMessage = (message: WorkerReply) =>
      settle(
        () => {
          if (message.ok) resolve(message.files);
          else if ('refusal' in message) reject(new Refusal(message.refusal.reason, message.refusal.values));
          else {
            // The code (ENOSPC: the disk is full) decides the answer; keep it across the thread.
            reject(
              Object.assign(new Error(`ingest worker failed: ${message.error}`), { code: message.code }),
            );
          }
        },
        // A job that ended in files or a refusal leaves nothing running: its worker may take the next.
        kept && (message.ok || 'refusal' in message),
      );
    const onError = (err: Error & { code?: string }) =>
      settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Refusal('extractFailed') : err));
    const onExit = (code: number) =>
      settle(() => reject(new Error(`ingest worker exited (${code}) without an answer`)));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    if (kept) worker.postMessage(job);
  });
}
