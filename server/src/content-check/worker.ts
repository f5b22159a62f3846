/** The content check's worker thread: the site's text in, the report out (analyze.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { type AnalyzeOptions, analyzeSite, type FileText } from './analyze.js';

export interface CheckJob {
  files: FileText[];
  entryFile: string | null;
  opts: AnalyzeOptions;
}

const job = workerData as CheckJob;
try {
  parentPort!.postMessage({ ok: true, report: analyzeSite(job.files, job.entryFile, job.opts) });
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
}
