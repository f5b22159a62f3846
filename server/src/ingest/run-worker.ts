/**
 * Runs one ingest job in a worker thread with a time limit and an abort signal; either one
 * terminates the worker (WebAssembly included) before the promise settles, so the caller can clean
 * up knowing nothing is still writing. At most one job per CPU runs at once, shared fairly between
 * accounts; the rest queue.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FairSlots, heavyJobSlots, type SlotOwner } from '../domain/fair-slots.js';
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
function startWorker(job: IngestJob): Worker {
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

/** Shared fairly between accounts, as the content check's (domain/fair-slots.ts). */
const slots = new FairSlots(heavyJobSlots());

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
    const worker = startWorker(job);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.terminate().then(outcome, outcome);
    };
    const timer = setTimeout(() => settle(() => reject(new Refusal(timeoutReason))), timeoutMs);
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerReply) =>
      settle(() => {
        if (message.ok) resolve(message.files);
        else if ('refusal' in message) reject(new Refusal(message.refusal.reason, message.refusal.values));
        else {
          // The code (ENOSPC: the disk is full) decides the answer; keep it across the thread.
          reject(Object.assign(new Error(`ingest worker failed: ${message.error}`), { code: message.code }));
        }
      }),
    );
    worker.on('error', (err: Error & { code?: string }) =>
      settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Refusal('extractFailed') : err)),
    );
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`ingest worker exited (${code}) without an answer`))),
    );
  });
}
