/**
 * 7-Zip's WebAssembly (7z-wasm's 7zz.wasm), compiled. The server's main thread compiles it once and
 * hands the module to every 7-Zip job's worker (run-worker.ts): V8 shares a module's code between
 * threads, so the code it optimised while extracting one archive (TurboFan, ≈0.35 s of CPU and
 * ≈14 MB of compile memory per 5,000-file 7z) serves every later one, instead of each new worker
 * compiling 7-Zip again (docs/benchmarks.md "7z ingest: memory").
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';

/**
 * The part of the WebAssembly API used here: the server's TypeScript libraries (ES2023, Node) do
 * not declare it (it comes with the DOM's).
 */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
}
/** A compiled WebAssembly.Module (it may be posted to a worker). */
export type WasmModule = { readonly wasmModule: unique symbol };
export type WasmInstance = { readonly exports: object };
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * V8's tiering budget for WebAssembly while 7-Zip runs: a function is optimised by TurboFan once
 * it has run about this many bytes of its code (V8's default: 1,800,000). With the default, a
 * 5,000-file 7z had 87 of 7-Zip's functions optimised, ≈0.3 s of a process's first 7z's CPU, and
 * their compile zones were behind its peak RSS; most of it for one 75 KB function that every
 * command runs (a loop around a large switch: it uses up a budget fast, and runs a few
 * milliseconds in all). With this budget only the loops that decode (for that 7z LZMA and the
 * CRC) are optimised, and decode as fast; the others stay in Liftoff's code (docs/benchmarks.md
 * "7z ingest: session 31").
 */
export const SEVEN_ZIP_TIERING_BUDGET = 1_000_000_000;

/**
 * Sets SEVEN_ZIP_TIERING_BUDGET for the process, once, before 7-Zip is compiled: V8's flags are
 * the process's, and 7-Zip is its only WebAssembly (Node's own CommonJS lexer aside). A budget
 * given on the command line is left as it is.
 */
function useSevenZipTieringBudget(): void {
  if (budgetSet) return;
  budgetSet = true;
  if (process.execArgv.some((arg) => /^--wasm[-_]tiering[-_]budget\b/.test(arg))) return;
  v8.setFlagsFromString(`--wasm-tiering-budget=${SEVEN_ZIP_TIERING_BUDGET}`);
}
let budgetSet = false;

/** Compiles 7zz.wasm from the installed package. */
export async function compileSevenZip(): Promise<WasmModule> {
  useSevenZipTieringBudget();
  const wasmFile = path.join(path.dirname(createRequire(import.meta.url).resolve('7z-wasm')), '7zz.wasm');
  return wasm.compile(await fs.promises.readFile(wasmFile));
}
