/**
 * The content check's worker thread: a site's bytes (and earlier traces) in, the report and the new
 * traces out (analyze.ts). It stays up between checks (index.ts keeps a few), so each message is
 * one check and nothing of one check is kept for the next.
 */
import { parentPort } from 'node:worker_threads';
import type { ContentCheckReport } from '@sitehall/contracts';
import { type AnalyzeOptions, analyzeSiteTraced, type FileText } from './analyze.js';
import type { FileTrace } from './context.js';

/** A file as sent to the worker: its bytes (transferred, not copied), decoded when scanned. */
export interface FileBytes extends Omit<FileText, 'text'> {
  bytes: Uint8Array | null;
  /** Whether the caller keeps this file's trace (only then is it sent back). */
  keep: boolean;
}

export interface CheckJob {
  files: FileBytes[];
  entryFile: string | null;
  opts: AnalyzeOptions;
}

export type CheckReply =
  | { ok: true; report: ContentCheckReport; traces: Array<[number, FileTrace]>; stale: number[] }
  | { ok: false; error: string };

const decoder = new TextDecoder();

function check(job: CheckJob): CheckReply {
  const files: FileText[] = job.files.map(({ bytes, keep: _, ...f }) => ({
    ...f,
    get text() {
      return bytes === null ? null : decoder.decode(bytes);
    },
  }));
  const { report, traces, stale } = analyzeSiteTraced(files, job.entryFile, job.opts);
  // Kept even when some old trace went stale (the check then runs again): a trace records every
  // answer it got, so it is checked again wherever it is replayed.
  const kept: Array<[number, FileTrace]> = [];
  traces.forEach((trace, i) => {
    if (trace && job.files[i]!.keep) kept.push([i, trace]);
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
