/**
 * The extraction worker's entry point: the CPU-heavy part of an upload (unpacking, hashing,
 * content checks) runs here, off the server's main thread. run-worker.ts starts it, enforces the
 * time limit and kills it on abort. A loose files' job gets a worker of its own (workerData is the
 * job); an archive's job may go to a kept worker (workerData null), which takes jobs as messages,
 * one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ArchiveFormat, ArchiveFormatReadBy, ArchiveReader } from '@sitehall/contracts';
import { collectGarbage } from '../workers/collect-garbage.js';
import type { CheckedFile } from './content.js';
import { inspectFile } from './digest.js';
import { type IngestLimits, Refusal, type RefusalData, RefusedNames } from './refusal.js';
import type { WasmModule } from './sevenzip-code.js';

export type IngestJob =
  /** Loose files already validated by name, type and size: hash them and check their content. */
  | { kind: 'files'; files: { path: string; tempFile: string; downloadOnly: boolean }[] }
  /** An archive: list, validate, extract into outDir, verify, hash and check. */
  | {
      kind: 'archive';
      format: ArchiveFormat;
      /** The format's reader in contracts' ARCHIVE_FORMATS (the worker imports no archive table). */
      reader: ArchiveReader;
      archivePath: string;
      outDir: string;
      limits: IngestLimits;
      /** Contents the account holds already: zip entries of these are not written (zip only). */
      held?: string[];
      /**
       * Ask the caller, batch by batch, which other contents the store holds (StoredQuery): zip
       * entries of those are not written either (zip only).
       */
      ask?: boolean;
      /** 7-Zip compiled once by the main thread, its code shared (7-Zip only; sevenzip-code.ts). */
      sevenZipCode?: WasmModule;
    };

/**
 * The worker asks which of these contents the store holds (a batch of a zip's small entries,
 * hashed): the caller answers with a StoredAnswer of the same id, the held ones leased for it.
 */
export interface StoredQuery {
  ask: number;
  hashes: string[];
}
export interface StoredAnswer {
  answer: number;
  held: string[];
}

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
    return extractZip(
      job.archivePath,
      job.outDir,
      job.limits,
      new Set(job.held),
      job.ask ? askStored : undefined,
    );
  }
  const { extractWithSevenZip } = await import('./sevenzip-archive.js');
  try {
    return await extractWithSevenZip(
      job.format as ArchiveFormatReadBy<'7z-wasm'>,
      job.archivePath,
      job.outDir,
      job.limits,
      job.sevenZipCode,
    );
  } finally {
    // 7-Zip's instances and their WebAssembly memory are garbage now: collected before the worker
    // answers and waits for its next job (workers/collect-garbage.ts).
    collectGarbage();
  }
}

function reply(message: WorkerReply): void {
  parentPort?.postMessage(message);
}

/** Queries waiting for their answer, by id. */
const asked = new Map<number, (held: string[]) => void>();
let lastAsk = 0;

/** Which of the hashes the store holds, as the caller answers (held for this upload by its lease). */
function askStored(hashes: string[]): Promise<ReadonlySet<string>> {
  const id = ++lastAsk;
  return new Promise((resolve) => {
    asked.set(id, (held) => resolve(new Set(held)));
    parentPort?.postMessage({ ask: id, hashes } satisfies StoredQuery);
  });
}

function onMessage(message: IngestJob | StoredAnswer): void {
  if ('answer' in message) {
    const answered = asked.get(message.answer);
    asked.delete(message.answer);
    answered?.(message.held);
  } else void run(message);
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

// A job given at start (loose files') ends with the worker; a kept worker takes jobs, and its
// zips' answers, as messages.
if (parentPort) {
  if (workerData) void run(workerData as IngestJob);
  else parentPort.on('message', onMessage);
}
