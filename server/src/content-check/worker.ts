/** The content check's worker thread: the site's bytes in, the report out (analyze.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { type AnalyzeOptions, analyzeSite, type FileText } from './analyze.js';

/** A file as sent to the worker: its bytes (transferred, not copied), decoded when scanned. */
export interface FileBytes extends Omit<FileText, 'text'> {
  bytes: Uint8Array | null;
}

export interface CheckJob {
  files: FileBytes[];
  entryFile: string | null;
  opts: AnalyzeOptions;
}

const job = workerData as CheckJob;
const decoder = new TextDecoder();
const files: FileText[] = job.files.map(({ bytes, ...f }) => ({
  ...f,
  get text() {
    return bytes === null ? null : decoder.decode(bytes);
  },
}));
try {
  parentPort!.postMessage({ ok: true, report: analyzeSite(files, job.entryFile, job.opts) });
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
}
