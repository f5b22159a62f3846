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

/** Compiles 7zz.wasm from the installed package. */
export async function compileSevenZip(): Promise<WasmModule> {
  const wasmFile = path.join(path.dirname(createRequire(import.meta.url).resolve('7z-wasm')), '7zz.wasm');
  return wasm.compile(await fs.promises.readFile(wasmFile));
}
