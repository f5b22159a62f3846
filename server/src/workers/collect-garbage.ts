/**
 * A full garbage collection of the calling thread's heap, on demand. A kept ingest worker runs one
 * after each 7-Zip job (ingest/extract-worker.ts): the job's WebAssembly memory (tens of MB, grown
 * to the archive's dictionary) is garbage once the job ends, but V8 counts it as memory outside
 * its heap and collected it late or not at all while the worker waited, idle, for the next job;
 * four 7z jobs in a row left 240 MB where one leaves 150 (docs/benchmarks.md "A 7-Zip worker
 * kept").
 *
 * Node has no API for it: V8's `gc` function exists only in a context made while `--expose-gc` is
 * set. The flag is set for the moment one new context is made and cleared again, so no other
 * context (the server makes none for untrusted code) gets the function; when the process was
 * started with `--expose-gc` (the benchmarks), its own `gc` is used.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let collect: (() => void) | undefined;

export function collectGarbage(): void {
  collect ??= exposedGc();
  collect();
}

function exposedGc(): () => void {
  const own = (globalThis as { gc?: () => void }).gc;
  if (typeof own === 'function') return own;
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
