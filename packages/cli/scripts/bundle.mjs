#!/usr/bin/env node
// Bundles the command into one module, dist/sitehall.js (what bin/sitehall.js loads), with the
// plain contracts modules it uses inlined. Node loads one file instead of sixteen ES modules:
// each module is read, compiled and linked on its own, 13 ms of every run on the bench's machine
// (docs/benchmarks.md "The CLI's start: session 32"). Run by `npm run build` after tsc has
// checked the types; nothing is minified, so a stack trace still reads as the sources.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = path.resolve(import.meta.dirname, '..');
const dist = path.join(here, 'dist');
// The per-module output of earlier builds would otherwise be packed beside the bundle.
fs.rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, 'src/bin.ts')],
  outfile: path.join(dist, 'sitehall.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // Only node: built-ins are imported, and those stay imports.
  packages: 'external',
  logLevel: 'warning',
});
