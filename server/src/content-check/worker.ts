/**
 * The content check's worker thread: a site's bytes (and earlier traces) in, the report and the new
 * traces out (analyze.ts). It stays up between checks (index.ts keeps a few), so each message is
 * one check and nothing of one check is kept for the next.
 */
import { parentPort } from 'node:worker_threads';
import type { ContentCheckReport } from '@sitehall/contracts';
import { type AnalyzeOptions, analyzeSiteTraced, type FileText } from './analyze.js';
import type { FileTrace } from './context.js';

/**
 * A file as sent to the worker: its bytes (transferred, not copied), decoded when scanned, or the
 * trace to replay as its JSON text (trace-cache.ts keeps traces as text: a string crosses to the
 * worker for a copy of its bytes, where a trace's arrays and objects were cloned one by one).
 */
export interface FileBytes extends Omit<FileText, 'text' | 'trace'> {
  bytes: Uint8Array | null;
  trace?: string;
  /** Whether the caller keeps this file's trace (only then is it sent back). */
  keep: boolean;
}

/**
 * A job's files field by field, one array per field with an entry per file (index.ts jobFiles): a
 * few arrays of strings and numbers are cloned into the worker for less than as many objects, each
 * with its property names (docs/benchmarks.md "Digest deploys", session 56).
 */
export interface JobFiles {
  path: string[];
  size: number[];
  extension: string[];
  complete: boolean[];
  keep: boolean[];
  /** The trace to replay as its JSON text, or null. */
  trace: Array<string | null>;
  /** The bytes read (their memory transferred, not copied), or null. */
  bytes: Array<Uint8Array | null>;
}

export interface CheckJob {
  files: JobFiles;
  entryFile: string | null;
  opts: AnalyzeOptions;
}

/** `traces`: each new trace kept, by file index, as JSON text, with whether its scan read the file's path. */
export type CheckReply =
  | {
      ok: true;
      report: ContentCheckReport;
      traces: Array<[index: number, trace: string, usesPath: boolean | undefined]>;
      stale: number[];
    }
  | { ok: false; error: string };

const decoder = new TextDecoder();

/**
 * A file of the job as the check reads it: its text decoded on access (nothing keeps the string).
 * One class, not an object literal with its own getter per file: thousands of replayed files
 * each made a slow, dictionary-mode object (docs/benchmarks.md "Digest deploys", session 56).
 */
class JobFile implements FileText {
  readonly path: string;
  readonly size: number;
  readonly extension: string;
  readonly complete: boolean;
  readonly trace?: FileTrace;
  readonly #bytes: Uint8Array | null;

  constructor(files: JobFiles, i: number) {
    this.path = files.path[i]!;
    this.size = files.size[i]!;
    this.extension = files.extension[i]!;
    this.complete = files.complete[i]!;
    const trace = files.trace[i];
    if (trace) this.trace = JSON.parse(trace) as FileTrace;
    this.#bytes = files.bytes[i] ?? null;
  }

  get text(): string | null {
    return this.#bytes === null ? null : decoder.decode(this.#bytes);
  }
}

function check(job: CheckJob): CheckReply {
  const files: FileText[] = job.files.path.map((_, i) => new JobFile(job.files, i));
  const { report, traces, stale } = analyzeSiteTraced(files, job.entryFile, job.opts);
  // Kept even when some old trace went stale (the check then runs again): a trace records every
  // answer it got, so it is checked again wherever it is replayed.
  const kept: Array<[number, string, boolean | undefined]> = [];
  traces.forEach((trace, i) => {
    if (trace && job.files.keep[i]) kept.push([i, JSON.stringify(trace), trace.usesPath]);
  });
  return { ok: true, report, traces: kept, stale };
}

parentPort!.on('message', (job: CheckJob) => {
  let reply: CheckReply;
  try {
    reply = check(job);
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
