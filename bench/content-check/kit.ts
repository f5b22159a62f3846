/**
 * What the evaluation corpus's sites are made of (docs/content-check.md "Evaluation"): a seeded
 * random source, real files from node_modules (jQuery, Bootstrap), real builds (esbuild, Vite) and
 * a real obfuscator (javascript-obfuscator), made at run time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export type SiteFiles = Record<string, string | Buffer>;

export interface EvalSite {
  group: 'ordinary' | 'hostile';
  name: string;
  /** What it is, for the printout. */
  what: string;
  files: SiteFiles;
}

/** mulberry32: the same seed makes the same corpus. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const word = (n = 6) =>
    Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[int(36)]).join('');
  const tld = () => pick(['com', 'net', 'xyz', 'top', 'cc', 'site', 'online', 'shop', 'vip', 'icu']);
  const host = () =>
    `${pick(['api', 'cdn', 'static', 'log', 'm', 'data', 'sync', 'img'])}.${word(7)}.${tld()}`;
  return { next, int, pick, word, host };
}
export type Rng = ReturnType<typeof rng>;

export const page = (title: string, head: string, body: string) =>
  `<!doctype html>\n<html lang="zh-CN">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n${head}\n</head>\n<body>\n${body}\n</body>\n</html>\n`;

export const nodeModule = (rel: string) => fs.readFileSync(path.join(ROOT, 'node_modules', rel), 'utf8');
export const JQUERY = () => nodeModule('jquery/dist/jquery.min.js');
export const BOOTSTRAP_JS = () => nodeModule('bootstrap/dist/js/bootstrap.bundle.min.js');
export const BOOTSTRAP_CSS = () => nodeModule('bootstrap/dist/css/bootstrap.min.css');

/** An esbuild bundle of `entry` (a module's source; imports resolve from the repository's node_modules). */
export async function esbuildBundle(entry: string, opts: { jsx?: boolean; minify?: boolean } = {}) {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    stdin: { contents: entry, resolveDir: ROOT, loader: opts.jsx ? 'jsx' : 'js' },
    bundle: true,
    minify: opts.minify ?? true,
    format: 'iife',
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/** A Vite production build of a small app (files relative to its root): the dist files. */
export async function viteBuild(app: Record<string, string>): Promise<SiteFiles> {
  const vite = await import('vite');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-eval-vite-'));
  try {
    for (const [rel, text] of Object.entries(app)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    const result = (await vite.build({
      root: dir,
      base: './',
      logLevel: 'silent',
      configFile: false,
      build: { write: false, outDir: 'dist' },
    })) as { output: Array<{ fileName: string; type: string; code?: string; source?: string | Uint8Array }> };
    const files: SiteFiles = {};
    for (const o of result.output) {
      const body = o.type === 'chunk' ? o.code! : o.source!;
      files[o.fileName] = typeof body === 'string' ? body : Buffer.from(body);
    }
    return files;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** javascript-obfuscator at a strength kits use: string array (base64), control flow flattening, dead code. */
export async function obfuscate(code: string, seed: number, heavy = true): Promise<string> {
  const { default: JavaScriptObfuscator } = await import('javascript-obfuscator');
  return JavaScriptObfuscator.obfuscate(code, {
    seed,
    compact: true,
    controlFlowFlattening: heavy,
    controlFlowFlatteningThreshold: 0.75,
    deadCodeInjection: heavy,
    deadCodeInjectionThreshold: 0.4,
    stringArray: true,
    stringArrayEncoding: heavy ? ['base64'] : [],
    stringArrayThreshold: 1,
    splitStrings: heavy,
    splitStringsChunkLength: 5,
    identifierNamesGenerator: 'hexadecimal',
    transformObjectKeys: heavy,
    unicodeEscapeSequence: false,
  }).getObfuscatedCode();
}

/** A PNG whose pixels hold `text` (one byte per channel, RGB, length in the first pixel's row). */
export async function pngWithText(text: string): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  const bytes = Buffer.from(text, 'utf8');
  const width = 64;
  const pixels = Math.ceil((bytes.length + 3) / 3);
  const height = Math.max(1, Math.ceil(pixels / width));
  const raw = Buffer.alloc(width * height * 4, 255);
  const data = Buffer.concat([
    Buffer.from([bytes.length >> 16, (bytes.length >> 8) & 255, bytes.length & 255]),
    bytes,
  ]);
  for (let i = 0; i < data.length; i++) {
    const px = Math.floor(i / 3);
    raw[px * 4 + (i % 3)] = data[i]!;
  }
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

export const b64 = (s: string) => Buffer.from(s).toString('base64');
export const charCodes = (s: string) => [...s].map((c) => c.charCodeAt(0)).join(',');
