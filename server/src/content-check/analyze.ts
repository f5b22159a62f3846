/**
 * The check of a whole site, synchronous and pure: the files' text in, the report out. It runs in
 * a worker thread (index.ts), so a slow file never blocks the server's event loop; each file has a
 * time budget besides the size caps, and a file that runs out of it is named in the report.
 */
import type { ContentCheckReport, FileScan } from '@sitehall/contracts';
import { fileTypesWhere } from '@sitehall/contracts/file-types';
import { formatBytes } from '@sitehall/contracts/limits';
import {
  answersAsBefore,
  FileContext,
  type FileTrace,
  factsText,
  ScanBudget,
  type SiteContext,
  SiteScripts,
  TimeUp,
} from './context.js';
import { scanCss } from './css.js';
import { scanDecodedMarkup, scanHtml } from './html.js';
import { judgeSinks, scanScript } from './js.js';
import { Collector } from './report.js';

export const CONTENT_CHECK_LIMITS = {
  maxBytesPerFile: 2 * 1024 * 1024,
  maxBytesTotal: 64 * 1024 * 1024,
  /**
   * Scanning time of one file, in the worker thread's CPU time (context.ts ScanBudget); the rest of
   * a slower file is not looked at.
   */
  maxMsPerFile: 2000,
  /** Files at least this large get an info finding. */
  largeFileBytes: 10 * 1024 * 1024,
  /** Bytes of a non-markup text file looked at for a content/extension mismatch. */
  headBytes: 1024,
} as const;

const scanned = (...scans: FileScan[]) => new Set(fileTypesWhere((type) => scans.includes(type.scan)));
export const HTML = scanned('page');
export const SCRIPT = scanned('script');
/** Text types that must not be an HTML page in disguise. */
export const PLAIN_TEXT = scanned('style', 'script', 'json', 'text');
const JSON_TYPES = scanned('json');

/** Whether a file is read whole (up to the per-file cap) or only its head. */
const WHOLE = scanned('page', 'svg', 'script', 'style', 'json');
export const readsWhole = (ext: string) => WHOLE.has(ext);
export const isScanned = (ext: string) => readsWhole(ext) || PLAIN_TEXT.has(ext);

export interface FileText {
  path: string;
  size: number;
  extension: string;
  /** What was read: all of it, or up to the read caps (null: not read, e.g. over the total budget). */
  text: string | null;
  /** Whether `text` is the whole file. */
  complete: boolean;
  /**
   * What scanning this same file (path and bytes) did before: replayed instead of scanning when
   * the answers it got about other files still hold (then `text` is not read).
   */
  trace?: FileTrace;
}

/** A traced check: the report, each file's trace, and the files whose old trace no longer held. */
export interface TracedAnalysis {
  report: ContentCheckReport;
  /** By file index: the trace of each file scanned now (none for one that ran out of time). */
  traces: Array<FileTrace | undefined>;
  /**
   * Indexes of files given a trace whose answers differ now (a linked file gone, an included
   * script changed): they must be scanned, so `report` is not to be used unless this is empty.
   */
  stale: number[];
}

export interface AnalyzeOptions {
  rootPathsWork?: boolean;
  maxMsPerFile?: number;
  /** Epoch ms after which every file's scan stops (the check must answer within its time limit). */
  stopsAt?: number;
}

export function analyzeSite(
  files: readonly FileText[],
  entryFile: string | null,
  opts: AnalyzeOptions = {},
): ContentCheckReport {
  return analyzeSiteTraced(files, entryFile, opts).report;
}

/**
 * The index.html nearest the root in a subfolder, where the root has none: a whole project folder
 * uploaded (src/, README.md, package.json) whose site is its build's `dist/` or `build/`. Shallowest
 * first, then by path; `node_modules` holds other packages' pages, never the site.
 */
export function nestedIndex(files: readonly { path: string }[]): string | null {
  let best: string | null = null;
  let bestDepth = Number.POSITIVE_INFINITY;
  for (const { path } of files) {
    if (!/\/index\.html?$/i.test(path) || /(^|\/)node_modules\//.test(path)) continue;
    const depth = path.split('/').length;
    if (depth < bestDepth || (depth === bestDepth && best !== null && path < best)) {
      best = path;
      bestDepth = depth;
    }
  }
  return best;
}

/**
 * The check, also giving what each file's scan did (its trace), and replaying a file's earlier
 * trace where one is given and still holds (docs/decisions/review.md "Content check": unchanged files).
 */
export function analyzeSiteTraced(
  files: readonly FileText[],
  entryFile: string | null,
  opts: AnalyzeOptions = {},
): TracedAnalysis {
  const out = new Collector();
  const site: SiteContext = {
    out,
    paths: new Set(files.map((f) => f.path)),
    rootPathsWork: opts.rootPathsWork ?? false,
    scriptFacts: new SiteScripts(),
  };
  const partial: string[] = [];
  let scanned = 0;
  const site0 = { file: null, line: null };
  if (entryFile === null) {
    const nested = nestedIndex(files);
    if (nested) {
      out.add(
        'site.missing-entry-nested',
        { path: nested, folder: nested.slice(0, nested.lastIndexOf('/')) },
        site0,
      );
    } else out.add('site.missing-entry', {}, site0);
  }

  const traces: Array<FileTrace | undefined> = new Array(files.length);
  const stale: number[] = [];

  // Scripts first: the pages that include them inherit what they do (reads input, drives forms).
  // (By rank, then in the files' order: what a stable sort by rank gives, without a comparison's
  // two Set lookups each time.)
  const ranks = files.map((f) => rank(f.extension));
  const order = files.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]!);
  for (const i of order) {
    const f = files[i]!;
    if (f.size >= CONTENT_CHECK_LIMITS.largeFileBytes) {
      out.add('file.large', { size: formatBytes(f.size) }, { file: f.path, line: null });
    }
    const ext = f.extension;
    if (!isScanned(ext)) continue;
    if (f.trace) {
      if (!holds(f.trace, site)) {
        stale.push(i);
        continue;
      }
      scanned++;
      if (!(f.complete || !readsWhole(ext))) partial.push(f.path);
      replay(f.trace, f.path, site);
      if (SCRIPT.has(ext)) site.scriptFacts.replayed(f.path, f.trace.facts!);
      continue;
    }
    // Read once: in the worker, `text` decodes the file's bytes on access (nothing keeps the string).
    const raw = f.text;
    if (raw === null) {
      if (f.size > 0) partial.push(f.path);
      continue;
    }
    scanned++;
    const complete = f.complete || !readsWhole(ext);
    if (!complete) partial.push(f.path);
    const text = raw.replace(/^\ufeff/, '');
    const ctx = new FileContext(
      f.path,
      text,
      site,
      new ScanBudget(opts.maxMsPerFile ?? CONTENT_CHECK_LIMITS.maxMsPerFile, opts.stopsAt),
    );
    ctx.scanMarkup = (html, offset, depth) => scanDecodedMarkup(ctx, html, offset, depth);
    let timedOut = false;
    try {
      if (HTML.has(ext)) scanHtml(ctx, { svg: false });
      else if (ext === 'svg') scanHtml(ctx, { svg: true });
      else if (SCRIPT.has(ext)) {
        scanScript(ctx, text, 0);
        judgeSinks(ctx);
        site.scriptFacts.scanned(f.path, ctx.facts);
      } else if (ext === 'css') scanCss(ctx, text, 0);
    } catch (error) {
      if (!(error instanceof TimeUp)) throw error;
      timedOut = true;
      if (!partial.includes(f.path)) partial.push(f.path);
      out.add('site.check-incomplete', { file: f.path }, { file: f.path, line: null });
    }
    if (PLAIN_TEXT.has(ext)) plainText(ctx, ext, complete);
    else if (HTML.has(ext)) looksLikeHtml(ctx, ext);
    // A scan cut short by the clock is not the file's answer: the next check scans it again.
    if (!timedOut) {
      const facts = SCRIPT.has(ext) ? factsText(ctx.facts) : null;
      traces[i] = { ...ctx.trace, facts, usesPath: ctx.pathRead };
    }
  }

  const largest = [...files]
    .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))
    .slice(0, 5)
    .map((f) => ({ file: f.path, size: f.size }));
  return {
    report: out.report({ largest, scanned, partial: partial.sort(), entry: entryFile }),
    traces,
    stale,
  };
}

/** Whether every answer a trace got about other files is what this site answers now. */
function holds(trace: FileTrace, site: SiteContext): boolean {
  return (
    trace.paths.every((asked) => answersAsBefore(site, asked)) &&
    trace.scripts.every(([path, facts]) => site.scriptFacts.text(path) === facts)
  );
}

/** Adds a trace's findings and hosts, in their order, as the scan added them. */
function replay(trace: FileTrace, file: string, site: SiteContext) {
  for (const event of trace.events) {
    if (event[0] === 'relative_asset') {
      if (!site.out.relativeAssets.has(file)) site.out.relativeAssets.set(file, event[1]);
    } else if (event.length === 2) site.out.domains[event[0]].add(event[1]);
    else site.out.add(event[0], event[1], { file, line: event[2], excerpt: event[3] });
  }
}

const rank = (ext: string) => (SCRIPT.has(ext) ? 0 : HTML.has(ext) ? 2 : 1);

/** A text type that is really an HTML page, or JSON that does not parse. */
function plainText(ctx: FileContext, ext: string, complete: boolean) {
  const head = ctx.text.slice(0, CONTENT_CHECK_LIMITS.headBytes).trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) {
    ctx.add('file.html-in-other-type', { ext }, 0);
    return;
  }
  if (JSON_TYPES.has(ext) && complete) {
    try {
      JSON.parse(ctx.text);
    } catch {
      ctx.add('file.invalid-json', { ext }, null);
    }
  }
}

function looksLikeHtml(ctx: FileContext, ext: string) {
  if (!ctx.text.slice(0, CONTENT_CHECK_LIMITS.headBytes).includes('<')) {
    ctx.add('file.not-html', { ext }, null);
  }
}
