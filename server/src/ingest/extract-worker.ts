/**
 * The extraction worker's entry point: the CPU-heavy part of an upload (unpacking, hashing,
 * content checks) runs here, off the server's main thread. run-worker.ts starts it, enforces the
 * time limit and kills it on abort. A 7-Zip job gets a worker of its own (workerData is the job);
 * a zip's job may go to a kept worker (workerData null), which takes jobs as
 * messages, one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ArchiveFormat, ArchiveFormatReadBy, ArchiveReader } from '@sitehall/contracts';
import type { CheckedFile } from './content.js';
import { inspectFile } from './digest.js';
import { type IngestLimits, Refusal, type RefusalData, RefusedNames } from './refusal.js';

export type IngestJob =
  /** Loose files already validated by name, type and size: hash them and check their content. */
  | { kind: 'files'; files: { path: string; tempFile: string; downloadOnly: boolean }[] }
  /** An archive: list, validate, extract into outDir, verify, hash and check. */
  | {
      kind: 'archive';
      format: ArchiveFormat;
      /** The format's reader in contracts' ARCHIVE_FORMATS (the worker imports no contracts values). */
      reader: ArchiveReader;
      archivePath: string;
      outDir: string;
      limits: IngestLimits;
      /** Contents the account holds already: zip entries of these are not written (zip only). */
      held?: string[];
    };

export type WorkerReply =
  | { ok: true; files: CheckedFile[] }
  | { ok: false; refusal: RefusalData }
  | { ok: false; error: string; code?: string };

async function runJob(job: IngestJob): Promise<CheckedFile[]> {
  if (job.kind === 'files') {
    const files: CheckedFile[] = [];
    const executables = new RefusedNames('executable');
    for (const f of job.files) {
      const checked = executables.check(() => inspectFile(f.path, f.tempFile, f.downloadOnly));
      if (checked) files.push(checked);
    }
    executables.throwIfAny();
    return files;
  }
  // Each reader is loaded only when needed: worker start-up time is part of every upload.
  if (job.reader === 'yauzl') {
    const { extractZip } = await import('./zip-archive.js');
    return extractZip(job.archivePath, job.outDir, job.limits, new Set(job.held));
  }
  const { extractWithSevenZip } = await import('./sevenzip-archive.js');
  return extractWithSevenZip(
    job.format as ArchiveFormatReadBy<'7z-wasm'>,
    job.archivePath,
    job.outDir,
    job.limits,
  );
}

function reply(message: WorkerReply): void {
  parentPort?.postMessage(message);
}

function run(job: IngestJob): Promise<void> {
  return runJob(job).then(
    (files) => reply({ ok: true, files }),
    (err: unknown) => {
      if (err instanceof Refusal) reply({ ok: false, refusal: { reason: err.reason, values: err.values } });
      else {
        const code = (err as { code?: unknown } | null)?.code;
        reply({
          ok: false,
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
          ...(typeof code === 'string' ? { code } : {}),
        });
      }
    },
  );
}

if (parentPort) {
  if (workerData) void run(workerData as IngestJob);
  else parentPort.on('message', (job: IngestJob) => void run(job));
}
