/**
 * Worker threads: how the server starts one from compiled or TypeScript source, and the kept
 * workers of the content check (content-check/index.ts) and of archive ingest
 * (ingest/run-worker.ts). A worker's start cost 100-250 ms of CPU, more than a replayed
 * library's check or a small zip's extraction (docs/benchmarks.md "Large bundles"; 60-130 ms once
 * its modules were made lighter: "A worker's first job"), so a worker that answered its job
 * waits, unreferenced, for the next one for a while. A worker that failed or ran out of time is
 * never parked: its caller ends it.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker running the module `name` beside the caller (`import.meta.url`): `name.js` when the
 * caller is compiled, `name.ts` from the TypeScript source (Vitest, `tsx watch`). `--import tsx`
 * does not reach worker threads on Node 20, so from source a tiny ES module bootstrap registers
 * tsx's loader inside the worker and then imports the module.
 */
export function startWorkerBeside(callerUrl: string, name: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const bootstrap = [
    `import { register } from ${JSON.stringify(tsxApiUrl())};`,
    'register();',
    `await import(${JSON.stringify(new URL(`./${name}.ts`, callerUrl).href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), options);
}

/** tsx's ES module API (its CommonJS build cannot register the ES module loader). */
function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
}

export interface KeptWorkersOptions {
  /** Starts a worker that waits for jobs as messages. */
  start: () => Worker;
  /** Parked workers at most; one parked beyond it is ended instead. */
  maxParked?: number;
  /** A parked worker is ended after waiting this long. */
  idleMs: number;
  /** A worker retires after this many jobs (whatever a job leaves behind doesn't pile up). */
  maxJobs: number;
}

/** Workers that outlive their job, parked between jobs. */
export class KeptWorkers {
  readonly #idle: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];
  readonly #live = new Set<Worker>();
  readonly #jobsDone = new WeakMap<Worker, number>();

  constructor(private readonly opts: KeptWorkersOptions) {}

  /** Workers not yet ended, busy and parked. */
  get live(): number {
    return this.#live.size;
  }

  /** Workers waiting for a job. */
  get parked(): number {
    return this.#idle.length;
  }

  /** A new worker, counted among the live ones until it exits. */
  start(): Worker {
    const worker = this.opts.start();
    // A parked worker's failure only drops it; a busy one's is its job's (the caller listens too).
    worker.on('error', () => undefined);
    this.#live.add(worker);
    worker.on('exit', () => {
      this.#live.delete(worker);
      this.#unpark(worker);
    });
    return worker;
  }

  /** A parked worker (referenced again), else a new one. */
  take(): Worker {
    const waiting = this.#idle.pop();
    if (!waiting) return this.start();
    clearTimeout(waiting.timer);
    waiting.worker.ref();
    return waiting.worker;
  }

  /**
   * Keeps a worker that answered its job for the next one (unreferenced: it never holds the
   * process up). `finishedJob` is false for a spare started ahead of need.
   */
  park(worker: Worker, finishedJob = true): void {
    const jobs = (this.#jobsDone.get(worker) ?? 0) + (finishedJob ? 1 : 0);
    this.#jobsDone.set(worker, jobs);
    if (jobs >= this.opts.maxJobs || this.#idle.length >= (this.opts.maxParked ?? Number.POSITIVE_INFINITY)) {
      void worker.terminate();
      return;
    }
    worker.unref();
    const timer = setTimeout(() => {
      this.#unpark(worker);
      void worker.terminate();
    }, this.opts.idleMs);
    timer.unref();
    this.#idle.push({ worker, timer });
  }

  #unpark(worker: Worker) {
    const at = this.#idle.findIndex((w) => w.worker === worker);
    if (at === -1) return;
    clearTimeout(this.#idle[at]!.timer);
    this.#idle.splice(at, 1);
  }
}
