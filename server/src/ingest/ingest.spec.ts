/**
 * ingest() end to end, worker included: loose files, zip (hostile ones built byte by byte), 7z and
 * RAR (fixtures under server/test/fixtures, made by make-7z.py or given), limits, time limit and
 * abort, and that a refusal leaves workDir empty.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { DEFAULT_LIMITS, type UploadLimits } from '@sitehall/contracts';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import yazl from 'yazl';
import { collectGarbage } from '../workers/collect-garbage.js';
import { IngestError, type IngestInput, type IngestResult, ingest, type StagedUpload } from './index.js';
import type { RefusalReason } from './refusal.js';
import { parkedIngestWorkers, sevenZipCompileCount } from './run-worker.js';
import { extractWithSevenZip } from './sevenzip-archive.js';
import { compileSevenZip } from './sevenzip-code.js';
import { extractZip } from './zip-archive.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);

let root: string;
let counter = 0;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-ingest-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A fresh folder under the test root. */
function freshDir(prefix: string): string {
  const dir = path.join(root, `${prefix}-${++counter}`);
  fs.mkdirSync(dir);
  return dir;
}

/** A staged part, as the multipart layer leaves it: its bytes in a temp file. */
function stage(name: string, bytes: Buffer | string): StagedUpload {
  const tempFile = path.join(freshDir('in'), 'part');
  fs.writeFileSync(tempFile, bytes);
  return { name, tempFile, size: Buffer.byteLength(bytes) };
}

function stageFixture(name: string, fixture: string): StagedUpload {
  return stage(name, fs.readFileSync(path.join(FIXTURES, fixture)));
}

interface RunOptions {
  uploadType?: IngestInput['uploadType'];
  limits?: Partial<UploadLimits>;
  timeoutMs?: number;
  signal?: AbortSignal;
  stored?: IngestInput['stored'];
}

/** Runs ingest on a fresh workDir; returns that folder with the outcome. */
function start(
  files: StagedUpload[],
  opts: RunOptions = {},
): { workDir: string; outcome: Promise<IngestResult> } {
  const workDir = freshDir('work');
  const input: IngestInput = {
    files,
    uploadType: opts.uploadType ?? 'auto',
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    workDir,
    timeoutMs: opts.timeoutMs,
    stored: opts.stored,
  };
  return { workDir, outcome: ingest(input, opts.signal) };
}

async function run(
  files: StagedUpload[],
  opts: RunOptions = {},
): Promise<IngestResult & { workDir: string }> {
  const { workDir, outcome } = start(files, opts);
  return { ...(await outcome), workDir };
}

/** Expects a refusal for `reason`, in the error envelope's shape, and nothing left in workDir. */
async function refused(
  files: StagedUpload[],
  reason: RefusalReason,
  opts: RunOptions = {},
): Promise<IngestError> {
  const { workDir, outcome } = start(files, opts);
  const err = await outcome.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IngestError);
  const ingestError = err as IngestError;
  expect(ingestError.reason).toBe(reason);
  expect(ingestError.errors).toEqual({ files: ingestError.message });
  expect(fs.readdirSync(workDir)).toEqual([]);
  return ingestError;
}

const paths = (r: IngestResult) => r.files.map((f) => f.path);

/** Chinese text of about `bytes` bytes: three-byte characters, so read chunks end mid-character. */
function chineseText(bytes: number): string {
  const line = '<p>站点展厅：上传、审核、展示静态网站。</p>\n';
  return line.repeat(Math.ceil(bytes / Buffer.byteLength(line)));
}
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function zipOf(files: Record<string, string | Buffer>, dirs: string[] = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const dir of dirs) zip.addEmptyDirectory(dir);
  for (const [name, data] of Object.entries(files)) {
    zip.addBuffer(typeof data === 'string' ? Buffer.from(data) : data, name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface RawEntry {
  /** Raw bytes (for legacy encodings) or a string written as UTF-8. */
  name: string | Buffer;
  data?: Buffer | string;
  deflate?: boolean;
  /** General purpose bit flag. */
  flags?: number;
  method?: number;
  /** Unix mode in the high half of the external attributes (made by Unix). */
  unixMode?: number;
  /** A lie about the uncompressed size. */
  declaredSize?: number;
  /** Where the central directory says the local header is. */
  localOffset?: number;
  /** Bytes cut from the end of the stored data (a truncated entry). */
  cut?: number;
}

/** A zip written byte by byte, so that it can say what yazl never would. */
function rawZip(entries: RawEntry[], entryCount = entries.length): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name) : e.name;
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0));
    let body = e.deflate ? zlib.deflateRawSync(data) : data;
    if (e.cut) body = body.subarray(0, body.length - e.cut);
    const flags = e.flags ?? 0;
    if (flags & 1) body = Buffer.concat([Buffer.alloc(12), body]); // the traditional encryption header
    const method = e.method ?? (e.deflate ? 8 : 0);
    const crc = zlib.crc32(data);
    const size = e.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(e.unixMode === undefined ? 20 : (3 << 8) | 20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(body.length, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(((e.unixMode ?? 0) << 16) >>> 0, 38);
    record.writeUInt32LE(e.localOffset ?? offset, 42);
    parts.push(local, name, body);
    central.push(record, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entryCount, 8);
  end.writeUInt16LE(entryCount, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

const SITE = {
  'mysite/index.html': '<!doctype html><title>首页</title><link rel="stylesheet" href="css/app.css">',
  'mysite/css/app.css': 'body { color: #333 }',
  'mysite/img/logo.png': PNG,
};

describe('loose files', () => {
  it('accepts a dropped folder: relative paths, wrapper unwrapped, hashes and types', async () => {
    const files = Object.entries(SITE).map(([name, data]) => stage(name, data));
    const r = await run(files);
    expect(r.uploadType).toBe('files');
    expect(r.archiveFormat).toBeUndefined();
    expect(r.entryFile).toBe('index.html');
    expect(paths(r)).toEqual(['css/app.css', 'img/logo.png', 'index.html']);
    const index = r.files.find((f) => f.path === 'index.html')!;
    expect(index).toMatchObject({
      tempFile: files[0]!.tempFile,
      size: Buffer.byteLength(SITE['mysite/index.html']),
      sha256: sha256(SITE['mysite/index.html']),
      mimeType: 'text/html; charset=utf-8',
      extension: 'html',
    });
    expect(r.files.find((f) => f.path === 'img/logo.png')!.mimeType).toBe('image/png');
    expect(r.totalSize).toBe(r.files.reduce((s, f) => s + f.size, 0));
    expect(fs.readdirSync(r.workDir)).toEqual([]);
  });

  it('drops system litter silently', async () => {
    const r = await run([
      stage('site/index.html', '<p>x</p>'),
      stage('site/.DS_Store', Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31])),
      stage('site/Thumbs.db', Buffer.from([0xd0, 0xcf, 0x11, 0xe0])),
      stage('__MACOSX/site/._index.html', Buffer.from([0, 5, 0x16, 7])),
    ]);
    expect(paths(r)).toEqual(['index.html']);
  });

  it('labels text that is not UTF-8 without a charset', async () => {
    const r = await run([stage('old.html', iconv.encode('<title>旧网站</title>', 'gbk'))]);
    expect(r.files[0]!.mimeType).toBe('text/html');
    expect(r.entryFile).toBe('old.html');
  });

  it('refuses an empty file picked on its own by name, and keeps one inside a folder as shipped', async () => {
    const err = await refused([stage('index.html', '<p>x</p>'), stage('empty.css', '')], 'emptyFile');
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe('文件 "empty.css" 为空文件');
    const r = await run([stage('site/index.html', '<p>x</p>'), stage('site/vp-icons.css', '')]);
    expect(r.files.find((f) => f.path === 'vp-icons.css')).toMatchObject({
      size: 0,
      mimeType: 'text/css; charset=utf-8',
    });
  });

  it('refuses server-side scripts and executables by extension, naming every one', async () => {
    const err = await refused(
      [
        stage('index.html', '<p>x</p>'),
        stage('api.php', '<?php echo 1;'),
        stage('setup.exe', 'not really'),
        stage('bin/run.sh', 'echo'),
      ],
      'executable',
    );
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe(
      '不接受可执行文件、安装程序或服务器端脚本："api.php"、"setup.exe"、"bin/run.sh"',
    );
  });

  it('keeps files of other types as downloads only, by default', async () => {
    const gz = zlib.gzipSync(Buffer.from('{"a":1}'));
    const r = await run([
      stage('index.html', '<p>x</p>'),
      stage('LICENSE', 'MIT License'),
      stage('src/app.scss', 'a { b: c }'),
      stage('data.json.gz', gz),
    ]);
    const byPath = new Map(r.files.map((f) => [f.path, f]));
    expect([...byPath.keys()]).toEqual(['LICENSE', 'data.json.gz', 'index.html', 'src/app.scss']);
    for (const p of ['LICENSE', 'data.json.gz', 'src/app.scss']) {
      expect(byPath.get(p)).toMatchObject({ downloadOnly: true, mimeType: 'application/octet-stream' });
    }
    expect(byPath.get('index.html')).toMatchObject({
      downloadOnly: false,
      mimeType: 'text/html; charset=utf-8',
    });
  });

  it('skips or refuses files of other types when the settings say so', async () => {
    const files = () => [stage('index.html', '<p>x</p>'), stage('LICENSE', 'MIT'), stage('a.yml', 'a: 1')];
    const skipped = await run(files(), { limits: { unknownFileTypes: 'skip' } });
    expect(paths(skipped)).toEqual(['index.html']);
    const err = await refused(files(), 'entryTypeNotAllowed', { limits: { unknownFileTypes: 'refuse' } });
    expect(err.message).toContain('"LICENSE"、"a.yml"');
    expect(err.message).toContain('.html, .css, .js');
  });

  it('names every executable found by content at once, download-only files included', async () => {
    const pe = Buffer.alloc(256);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(128, 0x3c);
    pe.write('PE\0\0', 128, 'latin1');
    const err = await refused(
      [stage('index.html', '<p>x</p>'), stage('logo.png', pe), stage('tool', pe), stage('notes.txt', pe)],
      'executable',
    );
    expect(err.message).toBe('不接受可执行文件、安装程序或服务器端脚本："logo.png"、"tool"、"notes.txt"');
  });

  it('names every executable a zip holds among pages, extracted or asked about in batches', async () => {
    // Each entry's head is checked before the next entry's is read: a page after an executable
    // is not taken for one, and an executable after pages is not missed.
    const pe = Buffer.alloc(9000, 0x41);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(128, 0x3c);
    pe.write('PE\0\0', 128, 'latin1');
    const page = (i: number) => `<!doctype html><p>${'页面 '.repeat(3000 + i)}</p>`;
    const zip = await zipOf({
      'index.html': page(0),
      'logo.png': pe,
      'about.html': page(1),
      'notes.txt': pe,
      'last.html': page(2),
    });
    const message = '不接受可执行文件、安装程序或服务器端脚本："logo.png"、"notes.txt"';
    expect((await refused([stage('site.zip', zip)], 'executable')).message).toBe(message);
    const asked = await refused([stage('site.zip', zip)], 'executable', { stored: async () => [] });
    expect(asked.message).toBe(message);
    const clean = await zipOf({ 'index.html': page(0), 'about.html': page(1), 'last.html': page(2) });
    for (const opts of [{}, { stored: async () => [] }]) {
      const r = await run([stage('site.zip', clean)], opts);
      expect(r.files.map((f) => [f.path, f.mimeType])).toEqual([
        ['about.html', 'text/html; charset=utf-8'],
        ['index.html', 'text/html; charset=utf-8'],
        ['last.html', 'text/html; charset=utf-8'],
      ]);
    }
  });

  it('refuses content that contradicts the extension, and executables', async () => {
    const err = await refused([stage('logo.png', '<!doctype html><p>not a picture</p>')], 'typeMismatch');
    expect(err.message).toBe('文件内容与扩展名不符："logo.png"');
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(120)]);
    await refused([stage('app.js', elf)], 'executable');
  });

  it('says a text file saved as UTF-16 (Notepad\'s "Unicode") is UTF-16, loose or in a zip; UTF-8 with a BOM is kept', async () => {
    const page = '<!doctype html><h1>你好</h1>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(page, 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    let err = await refused([stage('index.html', le)], 'utf16Text');
    expect(err.message).toBe('文件 "index.html" 是 UTF-16 编码的文本，请在编辑器中另存为 UTF-8 编码后再上传');
    err = await refused(
      [
        stage(
          'site.zip',
          await zipOf({
            'index.html': '<p>x</p>',
            'css/style.css': Buffer.concat([Buffer.from([0xfe, 0xff]), be]),
          }),
        ),
      ],
      'utf16Text',
    );
    expect(err.message).toContain('"css/style.css"');
    // A picture may start with those bytes; only text is read as text.
    const bom8 = await run([
      stage('index.html', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page)])),
    ]);
    expect(paths(bom8)).toEqual(['index.html']);
  });

  it('refuses unsafe names sent as paths', async () => {
    await refused([stage('../index.html', '<p>x</p>')], 'pathTraversal');
    await refused([stage('a/Index.html', '<p>x</p>'), stage('a/index.html', '<p>y</p>')], 'duplicateName');
  });

  it('refuses as too large past the count and size limits', async () => {
    const many = Array.from({ length: 21 }, (_, i) => stage(`p${i}.html`, '<p>x</p>'));
    const count = await refused(many, 'tooManyFiles');
    expect(count.kind).toBe('too_large');
    expect(count.message).toBe('文件数量超过限制。最多允许上传 20 个文件');
    const big = await refused([stage('a.txt', 'x'.repeat(2048))], 'oversizedFile', {
      limits: { maxFileBytes: 1024 },
    });
    expect(big.kind).toBe('too_large');
    expect(big.message).toBe('文件 "a.txt" 大小超过限制。最大允许：1 KB');
    const total = await refused(
      [stage('a.txt', 'x'.repeat(600)), stage('b.txt', 'y'.repeat(600))],
      'uploadTooLarge',
      {
        limits: { maxUploadBytes: 1024 },
      },
    );
    expect(total.kind).toBe('too_large');
  });

  it('needs at least one file', async () => {
    await refused([], 'noFiles');
    // Files, all skipped: said as such, naming them, not as "no file chosen".
    const skipped = await refused([stage('.DS_Store', 'x'), stage('__MACOSX/._a.html', 'x')], 'onlySkipped');
    expect(skipped.message).toBe(
      '没有可发布的网站文件：".DS_Store"、"__MACOSX/._a.html" 是系统文件或不支持的类型，已被跳过',
    );
    const other = await refused([stage('notes.tar', 'x')], 'onlySkipped', {
      limits: { unknownFileTypes: 'skip' },
    });
    expect(other.message).toContain('"notes.tar"');
  });

  it('keeps archives as files when the upload type says files, or several are sent', async () => {
    const zip = await zipOf({ 'index.html': '<p>x</p>' });
    const one = await run([stage('site.zip', zip)], { uploadType: 'files' });
    expect(one.uploadType).toBe('files');
    expect(one.files.map((f) => [f.path, f.mimeType])).toEqual([['site.zip', 'application/zip']]);
    const two = await run([stage('a.zip', zip), stage('b.zip', zip)]);
    expect(paths(two)).toEqual(['a.zip', 'b.zip']);
  });

  it('refuses the zip upload type without exactly one archive', async () => {
    await refused([stage('index.html', '<p>x</p>')], 'archiveRequired', { uploadType: 'zip' });
    const zip = await zipOf({ 'index.html': '<p>x</p>' });
    await refused([stage('a.zip', zip), stage('b.zip', zip)], 'archiveRequired', { uploadType: 'zip' });
  });
});

describe('zip archives', () => {
  it('extracts a site, unwraps its folder and finds the entry file', async () => {
    const r = await run([stage('site.zip', await zipOf(SITE, ['mysite/', 'mysite/empty/']))]);
    expect(r).toMatchObject({ uploadType: 'zip', archiveFormat: 'zip', entryFile: 'index.html' });
    expect(paths(r)).toEqual(['css/app.css', 'img/logo.png', 'index.html']);
    for (const f of r.files) {
      expect(f.tempFile.startsWith(r.workDir + path.sep)).toBe(true);
      expect(sha256(fs.readFileSync(f.tempFile))).toBe(f.sha256);
      expect(fs.statSync(f.tempFile).size).toBe(f.size);
    }
  });

  it('reads a zip’s central directory without a thread-pool round trip per record', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`p/${i}.html`] = `<p>第 ${i} 页</p>`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-cd-'));
    try {
      const archive = path.join(dir, 'site.zip');
      fs.writeFileSync(archive, await zipOf(files));
      const out = path.join(dir, 'out');
      fs.mkdirSync(out);
      // yauzl's own file reader made two asynchronous reads per record: 800 here.
      const reads = vi.spyOn(fs, 'read');
      let calls: number;
      let checked: Awaited<ReturnType<typeof extractZip>>;
      try {
        checked = await extractZip(archive, out, { ...DEFAULT_LIMITS, forbiddenExtensions: [] });
        calls = reads.mock.calls.length;
      } finally {
        reads.mockRestore();
      }
      expect(calls).toBe(0);
      expect(checked.map((f) => f.path).sort()).toEqual(Object.keys(files).sort());
      for (const f of checked) expect(fs.readFileSync(f.tempFile, 'utf8')).toBe(files[f.path]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('decodes GBK names of zips made on Chinese Windows, and UTF-8 names without the flag', async () => {
    const gbk = rawZip([
      { name: iconv.encode('首页.html', 'gbk'), data: '<p>首页</p>' },
      { name: iconv.encode('样式/主题.css', 'gbk'), data: 'body{}' },
      { name: Buffer.from('图片/说明.txt'), data: '说明' },
    ]);
    const r = await run([stage('中文.zip', gbk)]);
    expect(paths(r)).toEqual(['图片/说明.txt', '样式/主题.css', '首页.html']);
    expect(r.entryFile).toBe('首页.html');
  });

  it('decodes Shift_JIS names of zips made on Japanese Windows, and keeps GBK for Chinese names with a rare character', async () => {
    const japanese = rawZip([
      { name: iconv.encode('トップ.html', 'shift_jis'), data: '<p>トップ</p>' },
      { name: iconv.encode('資料/説明書.html', 'shift_jis'), data: '<p>説明書</p>' },
      { name: iconv.encode('ｲﾝﾃﾞｯｸｽ.html', 'shift_jis'), data: '<p>半角</p>' },
      { name: Buffer.from('css/site.css'), data: 'body{}' },
    ]);
    const ja = await run([stage('日本語.zip', japanese)]);
    expect(paths(ja)).toEqual(['css/site.css', 'トップ.html', '資料/説明書.html', 'ｲﾝﾃﾞｯｸｽ.html']);
    // Kanji alone, with no kana: the code page is still told apart.
    const kanji = await run([
      stage('漢字.zip', rawZip([{ name: iconv.encode('会社概要.html', 'shift_jis'), data: '<p>x</p>' }])),
    ]);
    expect(paths(kanji)).toEqual(['会社概要.html']);
    // 镕 and 喆 are GBK's, outside GB2312: a Chinese name or two with them stays GBK.
    const chinese = rawZip([
      { name: iconv.encode('首页.html', 'gbk'), data: '<p>首页</p>' },
      { name: iconv.encode('人物/朱镕基.html', 'gbk'), data: '<p>x</p>' },
      { name: iconv.encode('人物/张喆.html', 'gbk'), data: '<p>y</p>' },
    ]);
    const zh = await run([stage('中文.zip', chinese)]);
    expect(paths(zh)).toEqual(['人物/张喆.html', '人物/朱镕基.html', '首页.html']);
  });

  it('decodes Big5 names of zips made on Traditional Chinese Windows, and keeps GBK for Simplified names', async () => {
    // Most of these pairs are GB2312-shaped (首 is AD BA): only the private-use characters that
    // GBK reads in 首, 頁, 於, 們, 片 tell the archive apart.
    const traditional = rawZip([
      { name: iconv.encode('首頁.html', 'big5'), data: '<p>首頁</p>' },
      { name: iconv.encode('關於我們/聯絡.html', 'big5'), data: '<p>聯絡</p>' },
      { name: iconv.encode('圖片/標誌.png', 'big5'), data: PNG },
      { name: Buffer.from('css/site.css'), data: 'body{}' },
    ]);
    const zhHant = await run([stage('繁體.zip', traditional)]);
    expect(paths(zhHant)).toEqual(['css/site.css', '圖片/標誌.png', '關於我們/聯絡.html', '首頁.html']);
    expect(zhHant.entryFile).toBe('首頁.html');
    const simplified = rawZip([
      { name: iconv.encode('首页.html', 'gbk'), data: '<p>首页</p>' },
      { name: iconv.encode('关于我们/联系.html', 'gbk'), data: '<p>联系</p>' },
      { name: iconv.encode('图片/标志.png', 'gbk'), data: PNG },
    ]);
    const zhHans = await run([stage('简体.zip', simplified)]);
    expect(paths(zhHans)).toEqual(['关于我们/联系.html', '图片/标志.png', '首页.html']);
    // Traditional characters typed on Simplified Windows are GBK's, outside GB2312, and shaped
    // like Big5 (鵬 is F9 69): no private-use character in their GBK reading, so they stay GBK.
    const traditionalInGbk = rawZip([{ name: iconv.encode('鵬飛.html', 'gbk'), data: '<p>x</p>' }]);
    const gbk = await run([stage('名字.zip', traditionalInGbk)]);
    expect(paths(gbk)).toEqual(['鵬飛.html']);
  });

  it('reads the format from magic bytes, not the name', async () => {
    const sevenZip = await run([stageFixture('site.zip', '7z/site.7z')]);
    expect(sevenZip.archiveFormat).toBe('7z');
    expect(sevenZip.entryFile).toBe('index.html');
    const zipAsRar = await run([stage('site.rar', await zipOf({ 'index.html': '<p>x</p>' }))]);
    expect(zipAsRar.archiveFormat).toBe('zip');
    await refused([stage('site.zip', 'just some text, not an archive')], 'notArchive');
  });

  it('keeps an archive inside the archive as a file', async () => {
    const inner = await zipOf({ 'a.html': '<p>a</p>' });
    const r = await run([
      stage('outer.zip', await zipOf({ 'index.html': '<p>x</p>', 'downloads/inner.zip': inner })),
    ]);
    expect(paths(r)).toEqual(['downloads/inner.zip', 'index.html']);
    expect(r.files[0]!.sha256).toBe(sha256(inner));
  });

  it('drops litter and refuses an archive with nothing else', async () => {
    const r = await run([
      stage(
        'site.zip',
        await zipOf({
          'site/index.html': '<p>x</p>',
          'site/.DS_Store': Buffer.from([0, 0, 0, 1]),
          '__MACOSX/site/._index.html': Buffer.from([0, 5, 0x16, 7]),
          'site/desktop.ini': '[.ShellClassInfo]',
        }),
      ),
    ]);
    expect(paths(r)).toEqual(['index.html']);
    const onDisk = fs.readdirSync(r.workDir, { recursive: true }).map(String);
    expect(onDisk.some((p) => p.includes('__MACOSX') || p.includes('.DS_Store'))).toBe(false);
    const junk = await refused(
      [stage('junk.zip', await zipOf({ '.DS_Store': Buffer.from([0, 0, 0, 1]) }))],
      'onlySkipped',
    );
    expect(junk.message).toContain('".DS_Store"');
    await refused([stage('dirs.zip', await zipOf({}, ['a/', 'a/b/']))], 'emptyArchive');
    await refused([stage('none.zip', rawZip([]))], 'emptyArchive');
  });

  it('takes a zip of a folder\'s "." as bsdtar (Windows\' tar.exe) writes it: ./ names, the root listed', async () => {
    // `tar -a -c -f site.zip .`: the folder itself as './', then './index.html', './css/', ...
    const r = await run([
      stage(
        'dot.zip',
        rawZip([
          { name: './', data: '' },
          { name: './index.html', data: '<p>点开头</p>', deflate: true },
          { name: './css/', data: '' },
          { name: './css/a.css', data: 'p{color:#333}' },
        ]),
      ),
    ]);
    expect(paths(r)).toEqual(['css/a.css', 'index.html']);
    expect(r.entryFile).toBe('index.html');
    expect(fs.readFileSync(r.files.find((f) => f.path === 'index.html')!.tempFile, 'utf8')).toBe(
      '<p>点开头</p>',
    );
    // Only at the start: a '.' inside a path, or a file named '.', is still unsafe.
    for (const name of ['a/./b.html', '.', './.']) {
      await refused(
        [
          stage(
            'dots.zip',
            rawZip([
              { name: 'index.html', data: '<p>x</p>' },
              { name, data: 'x' },
            ]),
          ),
        ],
        'pathTraversal',
      );
    }
    // './index.html' and 'index.html' are one file to any tool that extracts them.
    await refused(
      [
        stage(
          'twice.zip',
          rawZip([
            { name: './index.html', data: '<p>a</p>' },
            { name: 'index.html', data: '<p>b</p>' },
          ]),
        ),
      ],
      'duplicateName',
    );
  });

  it.each([
    ['../evil.html', 'pathTraversal'],
    ['/etc/evil.html', 'pathTraversal'],
    ['site\\..\\evil.html', 'pathTraversal'],
    ['C:/evil.html', 'pathTraversal'],
    ['evil\u0000.html', 'badName'],
    ['evil\u202elmth.txt', 'invisibleName'],
    ['index\u200b.html', 'invisibleName'],
    ['tab\u0009.html', 'badName'],
  ] as const)('refuses the entry name %j', async (name, reason) => {
    await refused(
      [
        stage(
          'bad.zip',
          rawZip([
            { name: 'index.html', data: '<p>x</p>' },
            { name, data: 'x' },
          ]),
        ),
      ],
      reason,
    );
  });

  it('refuses links and other non-regular entries', async () => {
    const link = rawZip([
      { name: 'index.html', data: '<p>x</p>' },
      { name: 'passwd.txt', data: '/etc/passwd', unixMode: 0o120777 },
    ]);
    const err = await refused([stage('link.zip', link)], 'notRegularFile');
    expect(err.message).toBe('压缩包包含符号链接或特殊文件："passwd.txt"');
    await refused(
      [stage('fifo.zip', rawZip([{ name: 'pipe.txt', data: 'x', unixMode: 0o010644 }]))],
      'notRegularFile',
    );
  });

  it('refuses duplicates, case and normalisation collisions, and file/folder clashes', async () => {
    const twice = rawZip([
      { name: 'index.html', data: '<p>1</p>' },
      { name: 'index.html', data: '<p>2</p>' },
    ]);
    await refused([stage('dup.zip', twice)], 'duplicateName');
    const byCase = rawZip([
      { name: 'Index.html', data: '<p>1</p>' },
      { name: 'index.html', data: '<p>2</p>' },
    ]);
    await refused([stage('case.zip', byCase)], 'duplicateName');
    const byForm = rawZip([
      { name: 'caf\u00e9.html', data: '<p>1</p>', flags: 0x800 },
      { name: 'cafe\u0301.html', data: '<p>2</p>', flags: 0x800 },
    ]);
    const err = await refused([stage('nfd.zip', byForm)], 'duplicateName');
    expect(err.message).toBe('存在重复或仅大小写不同的文件名："café.html"');
    const clash = rawZip([
      { name: 'page.html', data: '<p>1</p>' },
      { name: 'page.html/style.css', data: 'a{}' },
    ]);
    await refused([stage('clash.zip', clash)], 'fileFolderClash');
  });

  it('refuses overlapping entries (a zip bomb trick)', async () => {
    const data = 'x'.repeat(1000);
    const overlapping = rawZip([
      { name: 'a.txt', data, deflate: true },
      { name: 'b.txt', data, deflate: true, localOffset: 0 },
    ]);
    await refused([stage('overlap.zip', overlapping)], 'overlapping');
  });

  it('refuses an end record that counts fewer entries than the central directory holds', async () => {
    const entries = [
      { name: 'index.html', data: '<p>x</p>' },
      { name: 'hidden.html', data: '<p>y</p>' },
      { name: 'also-hidden.css', data: 'a{}' },
    ];
    const err = await refused([stage('short-count.zip', rawZip(entries, 1))], 'entryCountMismatch');
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe('压缩包结构异常（目录中的文件数与记录的不一致）');
    await refused([stage('zero-count.zip', rawZip(entries, 0))], 'entryCountMismatch');
    // The same entries with a true count are taken, all three.
    const whole = await run([stage('true-count.zip', rawZip(entries))]);
    expect(paths(whole)).toEqual(['also-hidden.css', 'hidden.html', 'index.html']);
  });

  it('refuses entries larger than they declare', async () => {
    const deflated = rawZip([
      { name: 'big.txt', data: 'x'.repeat(100_000), deflate: true, declaredSize: 1000 },
    ]);
    await refused([stage('lie.zip', deflated)], 'sizeMismatch');
    const stored = rawZip([{ name: 'big.txt', data: 'x'.repeat(5000), declaredSize: 10 }]);
    await refused([stage('lie2.zip', stored)], 'sizeMismatch');
  });

  it('extracts large entries, stored and deflated, in pieces', async () => {
    // Over 4 MB, so read and inflated a chunk at a time; UTF-8 is still recognised across chunks.
    const text = chineseText(9 * 1024 * 1024);
    const media = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]),
      Buffer.alloc(6 * 1024 * 1024, 7),
    ]);
    const gbk = iconv.encode(chineseText(5 * 1024 * 1024), 'gbk');
    const zip = rawZip([
      { name: 'index.html', data: text, deflate: true },
      { name: 'video.mp4', data: media },
      { name: 'old.html', data: gbk, deflate: true },
    ]);
    const r = await run([stage('big.zip', zip)], { limits: { maxFileBytes: 50 * 1024 * 1024 } });
    const byPath = new Map(r.files.map((f) => [f.path, f]));
    expect(byPath.get('index.html')).toMatchObject({
      sha256: sha256(text),
      size: Buffer.byteLength(text),
      mimeType: 'text/html; charset=utf-8',
    });
    expect(byPath.get('video.mp4')).toMatchObject({ sha256: sha256(media), size: media.length });
    expect(byPath.get('old.html')).toMatchObject({ sha256: sha256(gbk), mimeType: 'text/html' });
    for (const f of r.files) expect(sha256(fs.readFileSync(f.tempFile))).toBe(f.sha256);
  });

  it('extracts a deflated entry whose compressed data is larger than one read', async () => {
    // Random bytes barely compress: ~2 MB of deflated data, over the 1 MB read buffer but under
    // the size inflated in one call.
    const noise = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2 * 1024 * 1024)]);
    const zip = rawZip([
      { name: 'index.html', data: '<h1>首页</h1>', deflate: true },
      { name: 'noise.png', data: noise, deflate: true },
    ]);
    const r = await run([stage('noise.zip', zip)]);
    const file = r.files.find((f) => f.path === 'noise.png');
    expect(file).toMatchObject({ sha256: sha256(noise), size: noise.length });
    expect(sha256(fs.readFileSync(file!.tempFile))).toBe(file!.sha256);
  });

  it('refuses large entries that lie about their size or are cut short', async () => {
    const limits = { maxFileBytes: 50 * 1024 * 1024 };
    const text = 'x'.repeat(12 * 1024 * 1024);
    const more = rawZip([{ name: 'a.txt', data: text, deflate: true, declaredSize: 5 * 1024 * 1024 }]);
    await refused([stage('more.zip', more)], 'sizeMismatch', { limits });
    const less = rawZip([{ name: 'a.txt', data: text, deflate: true, declaredSize: 20 * 1024 * 1024 }]);
    await refused([stage('less.zip', less)], 'sizeMismatch', { limits });
    const cutDeflated = rawZip([
      { name: 'a.txt', data: chineseText(9 * 1024 * 1024), deflate: true, cut: 100 },
    ]);
    await refused([stage('cut.zip', cutDeflated)], 'corrupt', { limits });
    const cutSmall = rawZip([{ name: 'a.txt', data: chineseText(100_000), deflate: true, cut: 100 }]);
    await refused([stage('cut2.zip', cutSmall)], 'corrupt', { limits });
  });

  it('labels long text without a charset when a later chunk is not UTF-8', async () => {
    // Loose files are read in 1 MB chunks: an invalid byte after the first one still counts.
    const text = Buffer.concat([Buffer.from(chineseText(3 * 1024 * 1024)), iconv.encode('旧', 'gbk')]);
    const r = await run([stage('index.html', text)]);
    expect(r.files[0]!.mimeType).toBe('text/html');
    const whole = await run([stage('index.html', chineseText(3 * 1024 * 1024))]);
    expect(whole.files[0]!.mimeType).toBe('text/html; charset=utf-8');
  });

  it('refuses too many entries before reading them', async () => {
    const few = await zipOf({ 'a.html': '<p>a</p>', 'b.html': '<p>b</p>', 'c.html': '<p>c</p>' });
    const err = await refused([stage('many.zip', few)], 'tooManyEntries', {
      limits: { maxArchiveEntries: 2 },
    });
    expect(err.kind).toBe('too_large');
    expect(err.message).toBe('压缩包内的条目（文件和文件夹）数量超过限制。最多允许 2 个');
    // The end record claims 60,000 entries; reading any would fail as corrupt.
    const claims = rawZip([{ name: 'a.html', data: '<p>a</p>' }], 60_000);
    await refused([stage('claims.zip', claims)], 'tooManyEntries');
  });

  it('refuses more uncompressed bytes than allowed, and entries over the file limit', async () => {
    const zip = await zipOf({ 'a.txt': 'a'.repeat(3000), 'b.txt': 'b'.repeat(3000) });
    const err = await refused([stage('big.zip', zip)], 'tooLargeUncompressed', {
      limits: { maxArchiveUncompressedBytes: 4096 },
    });
    expect(err.kind).toBe('too_large');
    expect(err.message).toBe('压缩包解压后的总大小超过限制。最大允许：4 KB');
    await refused([stage('big.zip', zip)], 'oversizedFile', { limits: { maxFileBytes: 2048 } });
  });

  it('refuses encryption, unsupported methods and damage', async () => {
    await refused([stage('enc.zip', rawZip([{ name: 'a.html', data: '<p>x</p>', flags: 1 }]))], 'encrypted');
    await refused(
      [stage('aes.zip', rawZip([{ name: 'a.html', data: '<p>x</p>', method: 99 }]))],
      'encrypted',
    );
    await refused(
      [stage('bz.zip', rawZip([{ name: 'a.html', data: '<p>x</p>', method: 12 }]))],
      'unsupportedMethod',
    );
    const whole = await zipOf(SITE);
    await refused([stage('cut.zip', whole.subarray(0, whole.length - 40))], 'corrupt');
    const flipped = rawZip([{ name: 'a.txt', data: 'hello world, hello world', deflate: true }]);
    flipped.writeUInt8(flipped.readUInt8(35) ^ 0xff, 35); // inside the deflated data
    await refused([stage('bad.zip', flipped)], 'corrupt');
  });

  it('takes a real site as shipped: web types it loads, other files as downloads only', async () => {
    const eot = Buffer.alloc(64);
    eot.write('LP', 34, 'latin1');
    const icc = Buffer.alloc(128);
    icc.write('acsp', 36, 'latin1');
    const r = await run([
      stage(
        'dist.zip',
        await zipOf({
          'site/index.html': '<p>x</p>',
          'site/LICENSE': 'MIT License',
          'site/.nojekyll': '',
          'site/.jshintrc': '{}',
          'site/types/index.d.ts': 'export {};',
          'site/css/theme.scss': '$a: 1;',
          'site/config.yml': 'a: 1',
          'site/html.meta.json.gz': zlib.gzipSync(Buffer.from('{}')),
          'site/cmaps/UniGB-UCS2-H.bcmap': Buffer.from([0xe0, 0x01, 0x00, 0x00, 0x55, 0xaa]),
          'site/fonts/a.pfb': Buffer.from([0x80, 0x01, 0x10, 0x00, 0x00, 0x00, 0x25, 0x21]),
          'site/fonts/b.eot': eot,
          'site/profile.icc': icc,
          'site/model.glb': Buffer.concat([Buffer.from('glTF'), Buffer.alloc(16)]),
          'site/model.gltf': '{"asset":{"version":"2.0"}}',
          'site/subs.vtt': 'WEBVTT\n',
          'site/data.jsonld': '{"@context":"https://schema.org"}',
        }),
      ),
    ]);
    const kinds = Object.fromEntries(r.files.map((f) => [f.path, [f.downloadOnly, f.mimeType]]));
    expect(kinds).toEqual({
      // The empty .nojekyll is a marker for another tool: dropped.
      '.jshintrc': [true, 'application/octet-stream'],
      LICENSE: [true, 'application/octet-stream'],
      'cmaps/UniGB-UCS2-H.bcmap': [false, 'application/octet-stream'],
      'config.yml': [true, 'application/octet-stream'],
      'css/theme.scss': [true, 'application/octet-stream'],
      'data.jsonld': [false, 'application/ld+json; charset=utf-8'],
      'fonts/a.pfb': [false, 'application/x-font-type1'],
      'fonts/b.eot': [false, 'application/vnd.ms-fontobject'],
      'html.meta.json.gz': [true, 'application/octet-stream'],
      'index.html': [false, 'text/html; charset=utf-8'],
      'model.glb': [false, 'model/gltf-binary'],
      'model.gltf': [false, 'model/gltf+json; charset=utf-8'],
      'profile.icc': [false, 'application/vnd.iccprofile'],
      'subs.vtt': [false, 'text/vtt; charset=utf-8'],
      'types/index.d.ts': [true, 'application/octet-stream'],
    });
    expect(r.entryFile).toBe('index.html');
  });

  it('keeps empty files as shipped; refuses disallowed types and mismatched content inside', async () => {
    const kept = await run([
      stage('e.zip', await zipOf({ 'index.html': '<p>x</p>', 'a.css': '', 'b.png': '' })),
    ]);
    expect(paths(kept)).toEqual(['a.css', 'b.png', 'index.html']);
    expect(kept.files.find((f) => f.path === 'a.css')?.size).toBe(0);
    const scripts = await refused(
      [
        stage(
          't.zip',
          await zipOf({ 'index.html': '<p>x</p>', 'run.sh': 'echo', 'a/x.php': '<?php', 'b.exe': 'x' }),
        ),
      ],
      'executable',
    );
    expect(scripts.message).toBe('不接受可执行文件、安装程序或服务器端脚本："run.sh"、"a/x.php"、"b.exe"');
    await refused(
      [stage('m.zip', await zipOf({ 'index.html': '<p>x</p>', 'logo.png': '<p>no</p>' }))],
      'typeMismatch',
    );
  });
});

describe('7z archives', () => {
  it('extracts a site with Chinese names', async () => {
    const r = await run([stageFixture('site.7z', '7z/site.7z')]);
    expect(r).toMatchObject({ uploadType: 'zip', archiveFormat: '7z', entryFile: 'index.html' });
    expect(paths(r)).toEqual(['css/style.css', 'index.html', '图片/说明.txt']);
    for (const f of r.files) {
      expect(sha256(fs.readFileSync(f.tempFile))).toBe(f.sha256);
      // Data, not programs: no execute bit (Emscripten's default is 0777), readable and writable.
      expect(fs.statSync(f.tempFile).mode & 0o711, f.path).toBe(0o600);
    }
  });

  it('compiles 7-Zip once for the process: every later 7z and RAR job reuses the module', async () => {
    await run([stageFixture('site.7z', '7z/site.7z')]);
    const compiled = sevenZipCompileCount();
    expect(compiled).toBeGreaterThanOrEqual(1);
    const again = await run([stageFixture('site.7z', '7z/site.7z')]);
    expect(paths(again)).toEqual(['css/style.css', 'index.html', '图片/说明.txt']);
    await refused([stageFixture('traversal.7z', '7z/traversal.7z')], 'pathTraversal');
    expect(sevenZipCompileCount()).toBe(compiled);
  });

  it('takes a 7z of a folder\'s "." as bsdtar (Windows\' tar.exe) writes it: ./ names, the root listed', async () => {
    const r = await run([stageFixture('dot-prefix.7z', '7z/dot-prefix.7z')]);
    expect(paths(r)).toEqual(['css/a.css', 'index.html']);
    expect(r.entryFile).toBe('index.html');
    expect(fs.readFileSync(r.files.find((f) => f.path === 'css/a.css')!.tempFile, 'utf8')).toBe(
      'p{color:#333}\n',
    );
  });

  it('keeps nested archives and drops litter (from disk too)', async () => {
    const nested = await run([stageFixture('nested.7z', '7z/nested.7z')]);
    expect(paths(nested)).toEqual(['downloads/site.zip', 'index.html']);
    const junk = await run([stageFixture('junk.7z', '7z/junk.7z')]);
    expect(paths(junk)).toEqual(['index.html']);
    const onDisk = fs.readdirSync(junk.workDir, { recursive: true }).map(String);
    expect(onDisk.some((p) => p.includes('.DS_Store') || p.includes('._index.html'))).toBe(false);
  });

  it('keeps other types as downloads only, and names every executable at once', async () => {
    const r = await run([stageFixture('shipped.7z', '7z/shipped.7z')]);
    expect(r.files.map((f) => [f.path, f.downloadOnly, f.mimeType])).toEqual([
      ['LICENSE', true, 'application/octet-stream'],
      ['data.json.gz', true, 'application/octet-stream'],
      ['index.html', false, 'text/html; charset=utf-8'],
      ['src/theme.scss', true, 'application/octet-stream'],
    ]);
    const err = await refused([stageFixture('programs.7z', '7z/programs.7z')], 'executable');
    expect(err.message).toBe('不接受可执行文件、安装程序或服务器端脚本："img/logo.png"、"tool"');
  });

  it.each([
    ['encrypted.7z', 'encrypted'],
    ['encrypted-headers.7z', 'encrypted'],
    ['symlink.7z', 'notRegularFile'],
    ['case-collision.7z', 'duplicateName'],
    ['nfd-collision.7z', 'duplicateName'],
    ['bidi-name.7z', 'invisibleName'],
    ['traversal.7z', 'pathTraversal'],
    ['absolute.7z', 'pathTraversal'],
    ['corrupt-data.7z', 'corrupt'],
    ['truncated.7z', 'corrupt'],
    ['empty.7z', 'emptyArchive'],
  ] as const)('refuses %s (%s)', async (fixture, reason) => {
    await refused([stageFixture(fixture, `7z/${fixture}`)], reason);
  });

  it('applies the entry and size limits', async () => {
    await refused([stageFixture('site.7z', '7z/site.7z')], 'tooManyEntries', {
      limits: { maxArchiveEntries: 2 },
    });
    await refused([stageFixture('site.7z', '7z/site.7z')], 'tooLargeUncompressed', {
      limits: { maxArchiveUncompressedBytes: 20 },
    });
  });
});

describe('RAR archives', () => {
  it('extracts site.rar, unwrapping site/ and keeping Chinese names', async () => {
    const r = await run([stageFixture('site.rar', 'rar/site.rar')]);
    expect(r).toMatchObject({ uploadType: 'zip', archiveFormat: 'rar', entryFile: 'index.html' });
    expect(paths(r)).toEqual(['css/style.css', 'index.html', '图片/说明.txt']);
  });

  it('extracts FolderTest.rar: spaces and Chinese in folders, no entry file', async () => {
    const r = await run([stageFixture('FolderTest.rar', 'rar/FolderTest.rar')]);
    expect(r.entryFile).toBeNull();
    expect(r.files.map((f) => [f.path, f.size])).toEqual([
      ['Folder Space/long.txt', 1_049_076],
      ['Folder 中文/2中文.txt', 15],
    ]);
  });

  it.each([
    ['RAR 4', 'UnixSymlink.rar'],
    ['RAR 5', 'UnixSymlink5.rar'],
  ])('refuses a Unix symbolic link (%s) as zip and 7z links are', async (_format, fixture) => {
    const err = await refused([stageFixture(fixture, `rar/${fixture}`)], 'notRegularFile');
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe('压缩包包含符号链接或特殊文件："link.html"');
  });

  it.each(['HeaderEnc1234.rar', 'FileEncByName.rar'])(
    'refuses %s as password-protected, quickly',
    async (fixture) => {
      const started = Date.now();
      const err = await refused([stageFixture(fixture, `rar/${fixture}`)], 'encrypted');
      expect(err.message).toBe('不支持加密或有密码保护的压缩包');
      expect(Date.now() - started).toBeLessThan(15_000);
    },
  );
});

describe('kept workers', () => {
  it('a zip’s worker takes the next zip and the next 7z; one out of time is ended', async () => {
    const first = await run([stage('site.zip', await zipOf({ 'index.html': '<p>一</p>' }))]);
    expect(paths(first)).toEqual(['index.html']);
    const parked = parkedIngestWorkers();
    expect(parked).toBeGreaterThanOrEqual(1);
    // The same worker, taken and kept again: no second one.
    const second = await run([stage('site.zip', await zipOf({ 'index.html': '<p>二</p>', 'a.css': 'a{}' }))]);
    expect(paths(second).sort()).toEqual(['a.css', 'index.html']);
    expect(parkedIngestWorkers()).toBe(parked);
    // A refusal leaves nothing running either: kept.
    await refused(
      [stage('site.zip', await zipOf({ 'index.html': '<p>x</p>', 'run.exe': 'MZ' }))],
      'executable',
    );
    expect(parkedIngestWorkers()).toBe(parked);
    // 7-Zip's job is taken by the same worker, and leaves it parked; a zip after it too.
    const sevenZip = await run([stageFixture('site.7z', '7z/site.7z')]);
    expect(paths(sevenZip)).toContain('index.html');
    expect(parkedIngestWorkers()).toBe(parked);
    expect(paths(await run([stage('site.zip', await zipOf({ 'index.html': '<p>三</p>' }))]))).toEqual([
      'index.html',
    ]);
    expect(parkedIngestWorkers()).toBe(parked);
    // A zip job out of time ends the kept worker it took.
    const big = await zipOf({ 'big.bin': randomBytes(24 * 1024 * 1024) });
    await refused([stage('site.zip', big)], 'extractTimeout', { timeoutMs: 5 });
    expect(parkedIngestWorkers()).toBe(parked - 1);
  });
});

describe('7-Zip’s memory', () => {
  const MB = 1024 * 1024;
  // big-dictionary.7z: 40 MB of text in 6 KB, so extracting it grows 7-Zip's memory by ~40 MB.
  const BIG = 'big-dictionary.7z';

  it('is garbage once a 7-Zip command has run: nothing keeps its instance', async () => {
    const code = await compileSevenZip();
    const archive = stageFixture(BIG, `7z/${BIG}`).tempFile;
    const external = () => process.memoryUsage().external;
    collectGarbage();
    const before = external();
    const limits = { ...DEFAULT_LIMITS, forbiddenExtensions: [] };
    const files = await extractWithSevenZip('7z', archive, freshDir('out'), limits, code);
    expect(files.map((f) => f.path).sort()).toEqual(['big.txt', 'index.html']);
    // V8 counts memory it freed at its next collection: collected until the count is back.
    await expect
      .poll(() => {
        collectGarbage();
        return external() - before;
      })
      .toBeLessThan(8 * MB);
  });

  it('is given back before a kept worker takes its next job: three more 7z jobs peak no higher than one', async () => {
    // The process's peak resident memory since the last reset (Linux: VmHWM, reset by writing 5 to
    // clear_refs), as bench/ingest.mjs measures it.
    const resetPeak = () => fs.writeFileSync('/proc/self/clear_refs', '5');
    const peak = () =>
      Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
    const once = async () => {
      const r = await run([stageFixture(BIG, `7z/${BIG}`)]);
      expect(paths(r).sort()).toEqual(['big.txt', 'index.html']);
      fs.rmSync(r.workDir, { recursive: true, force: true });
    };
    resetPeak();
    await once();
    const first = peak();
    expect(parkedIngestWorkers()).toBeGreaterThanOrEqual(1);
    resetPeak();
    for (let i = 0; i < 3; i++) await once();
    // A job's ~40 MB, were it still held when the worker takes the next job, would come on top.
    expect(peak() - first).toBeLessThan(25 * MB);
  });
});

describe('time limit and abort', () => {
  it('gives up past the time limit and cleans up', async () => {
    const archive = await refused([stageFixture('FolderTest.rar', 'rar/FolderTest.rar')], 'extractTimeout', {
      timeoutMs: 5,
    });
    expect(archive.message).toBe('解压超时，压缩包过大或过于复杂');
    await refused([stage('index.html', '<p>x</p>')], 'processTimeout', { timeoutMs: 5 });
  });

  it('stops when the signal aborts, leaving nothing behind', async () => {
    const controller = new AbortController();
    const archive = () => [stageFixture('FolderTest.rar', 'rar/FolderTest.rar')];
    const { workDir, outcome } = start(archive(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(outcome).rejects.toMatchObject({ name: 'AbortError' });
    expect(fs.readdirSync(workDir)).toEqual([]);
    await expect(start(archive(), { signal: AbortSignal.abort() }).outcome).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});
