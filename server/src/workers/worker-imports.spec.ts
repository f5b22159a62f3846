/**
 * What a new worker thread loads before its first job is paid again by every upload after its
 * workers went idle (kept-workers.ts), so the two workers' module graphs stay light
 * (docs/benchmarks.md "A worker's first job"): no module either loads brings contracts' index
 * (every zod schema: ≈120 ms of CPU for each new worker), and no CommonJS package is `import`ed
 * (Node reads an imported CommonJS package's whole source with its export lexer first, 30-60 ms of
 * CPU each; the modules `require` them instead). Read from the sources as text, following every
 * import that is not type-only, as tsc leaves them in the build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..');
const ROOT = path.resolve(SRC, '../..');

const WORKERS = ['content-check/worker.ts', 'ingest/extract-worker.ts'];

/**
 * The specifiers a module loads at run time: its imports and re-exports that name a value (tsc
 * drops `import type` and an import of types only), and its `import()` of a literal (not `typeof import()`, a type).
 */
function runtimeSpecifiers(source: string): string[] {
  const found: string[] = [];
  const statements = /^(import|export)\s+(type\s+)?(?:([^;'"]*?)\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const [, keyword, typeOnly, clause, specifier] of source.matchAll(statements)) {
    if (typeOnly || !specifier) continue;
    if (keyword === 'import' && clause !== undefined && !namesAValue(clause)) continue;
    if (keyword === 'export' && clause === undefined) continue;
    found.push(specifier);
  }
  // Not `typeof import('x')`, a type.
  const dynamic = /(?<!typeof\s+)\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const [, specifier] of source.matchAll(dynamic)) found.push(specifier!);
  return found;
}

/** Whether an import clause (`a`, `* as a`, `{ type b, c }`, `a, { b }`) brings a value. */
function namesAValue(clause: string): boolean {
  const braces = /\{([^}]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,/g, '')
    .trim();
  if (outside !== '') return true;
  const members = (braces?.[1] ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return members.some((m) => !m.startsWith('type '));
}

/** The packages (and contracts' modules) a worker's graph loads at run time, by specifier. */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeSpecifiers(fs.readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.'))
        visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  };
  visit(path.join(SRC, entry));
  return packages;
}

/** The file Node loads for `import name` from the server: [file, the package's "type"]. */
function importTarget(name: string): { file: string; type: string | undefined } {
  const dir = [path.join(ROOT, 'server/node_modules', name), path.join(ROOT, 'node_modules', name)].find(
    (d) => fs.existsSync(path.join(d, 'package.json')),
  );
  if (!dir) throw new Error(`${name} is not installed`);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    type?: string;
    main?: string;
    exports?: unknown;
  };
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (Array.isArray(target)) return target.map(pick).find(Boolean);
    if (target && typeof target === 'object') {
      const conditions = target as Record<string, unknown>;
      if ('.' in conditions) return pick(conditions['.']);
      for (const condition of ['node', 'import', 'default']) {
        const chosen = pick(conditions[condition]);
        if (chosen) return chosen;
      }
    }
    return undefined;
  };
  return { file: pick(pkg.exports) ?? pkg.main ?? 'index.js', type: pkg.type };
}

const isEsModule = ({ file, type }: { file: string; type: string | undefined }) =>
  file.endsWith('.mjs') || (type === 'module' && !file.endsWith('.cjs'));

describe('what a new worker loads', () => {
  it('reads the imports tsc keeps', () => {
    const source = [
      "import fs from 'node:fs';",
      "import type { A } from 'types-only';",
      "import { type B, type C } from 'members-types-only';",
      "import { type D, e } from 'one-value';",
      "import * as all from 'namespace';",
      "import side from 'default';",
      "import 'side-effect';",
      "export { f } from './re-export.js';",
      "export type { G } from 'type-re-export';",
      "const later = await import('./dynamic.js');",
      "const lib = require('cjs') as typeof import('cjs');",
    ].join('\n');
    expect(runtimeSpecifiers(source)).toEqual([
      'node:fs',
      'one-value',
      'namespace',
      'default',
      'side-effect',
      './re-export.js',
      './dynamic.js',
    ]);
  });

  it.each(WORKERS)('%s loads no schemas and imports no CommonJS package', (entry) => {
    const packages = packagesLoadedBy(entry);
    // The workers' own modules of contracts are there (a reading that found nothing would pass).
    expect([...packages].some((p) => p.startsWith('@sitehall/contracts/'))).toBe(true);
    expect(packages).not.toContain('@sitehall/contracts');
    const imported = [...packages].filter((p) => !p.startsWith('@sitehall/'));
    expect(imported.filter((p) => !isEsModule(importTarget(p)))).toEqual([]);
  });

  it('tells a CommonJS package from an ES module one', () => {
    // yauzl and 7z-wasm are CommonJS (the workers require them); htmlparser2 and acorn are not.
    expect(isEsModule(importTarget('yauzl'))).toBe(false);
    expect(isEsModule(importTarget('7z-wasm'))).toBe(false);
    expect(isEsModule(importTarget('htmlparser2'))).toBe(true);
    expect(isEsModule(importTarget('acorn'))).toBe(true);
  });
});
