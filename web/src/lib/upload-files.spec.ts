import { DEFAULT_LIMITS } from '@sitehall/contracts';
import { describe, expect, it } from 'vitest';
import {
  addFiles,
  detectUploadType,
  filesFromDataTransfer,
  type PickedFile,
  type UploadRules,
  uploadFormData,
  uploadItemCount,
  walkEntry,
} from './upload-files';

const rules: UploadRules = {
  maxFiles: 3,
  maxEntries: 6,
  maxFileBytes: 4096,
  maxUploadBytes: 6000,
  allowedExtensions: ['zip', 'rar', '7z', 'html', 'css', 'js', 'png'],
  unknownFileTypes: 'download',
};

const LIST = '.zip, .rar, .7z, .html, .css, .js, .png';

function file(name: string, size = 10, lastModified = 1_700_000_000_000): File {
  return new File([new Uint8Array(size).fill(65)], name.split('/').at(-1) ?? name, { lastModified });
}

const picked = (path: string, size?: number, lastModified?: number): PickedFile => ({
  file: file(path, size, lastModified),
  path,
});

describe('adding files to an upload', () => {
  it('keeps good files with their relative paths', async () => {
    const result = await addFiles([], [picked('site/index.html'), picked('site/css/app.css')], rules, 'drop');
    expect(result.files.map((f) => f.path)).toEqual(['site/index.html', 'site/css/app.css']);
    expect(result.problems).toEqual([]);
  });

  it('discards empty items: 拖拽的文件无效或为空 for a drop, 选择的文件无效或为空 for a pick', async () => {
    const dropped = await addFiles([], [picked('empty.html', 0), picked('ok.html')], rules, 'drop');
    expect(dropped.files.map((f) => f.path)).toEqual(['ok.html']);
    expect(dropped.problems).toEqual([{ message: '拖拽的文件无效或为空', paths: ['empty.html'] }]);

    const chosen = await addFiles([], [picked('empty.html', 0)], rules, 'pick');
    expect(chosen.files).toEqual([]);
    expect(chosen.problems[0]?.message).toBe('选择的文件无效或为空');
  });

  it('refuses executables and server-side scripts, keeps other types for download by default', async () => {
    const result = await addFiles(
      [],
      [picked('shell.php'), picked('README'), picked('a.html'), picked('setup.EXE'), picked('.nojekyll', 0)],
      rules,
      'pick',
    );
    // The empty marker file is dropped, as the server drops it.
    expect(result.files.map((f) => f.path)).toEqual(['a.html', 'README']);
    expect(result.problems).toEqual([
      { message: '不接受可执行文件、安装程序或服务器端脚本', paths: ['shell.php', 'setup.EXE'] },
    ]);
  });

  it('skips or refuses other types when the settings say so', async () => {
    const incoming = [picked('LICENSE'), picked('a.html'), picked('src/a.scss')];
    const skipped = await addFiles([], incoming, { ...rules, unknownFileTypes: 'skip' }, 'pick');
    expect(skipped.files.map((f) => f.path)).toEqual(['a.html']);
    expect(skipped.problems).toEqual([]);
    const refused = await addFiles([], incoming, { ...rules, unknownFileTypes: 'refuse' }, 'pick');
    expect(refused.files.map((f) => f.path)).toEqual(['a.html']);
    expect(refused.problems).toEqual([
      { message: `不支持的文件类型。支持的格式：${LIST}`, paths: ['LICENSE', 'src/a.scss'] },
    ]);
  });

  it('checks extensions without regard to case', async () => {
    const result = await addFiles([], [picked('LOGO.PNG'), picked('Site.ZIP')], rules, 'pick');
    expect(result.files).toHaveLength(2);
  });

  it('refuses a file over the size limit, naming the limit', async () => {
    const result = await addFiles([], [picked('big.js', 5000)], rules, 'pick');
    expect(result.files).toEqual([]);
    expect(result.problems[0]).toEqual({ message: '文件大小超过限制。最大允许：4 KB', paths: ['big.js'] });
  });

  it('reads the first 1024 bytes of larger files; an unreadable one is refused', async () => {
    const broken = file('broken.js', 2048);
    Object.defineProperty(broken, 'slice', {
      value: () => ({ arrayBuffer: () => Promise.reject(new Error('gone')) }),
    });
    const small = file('small.js', 100);
    Object.defineProperty(small, 'slice', {
      value: () => {
        throw new Error('files under 1024 bytes are not read');
      },
    });
    const result = await addFiles(
      [],
      [
        { file: broken, path: 'js/broken.js' },
        { file: small, path: 'small.js' },
      ],
      rules,
      'pick',
    );
    expect(result.files.map((f) => f.path)).toEqual(['small.js']);
    expect(result.problems).toEqual([
      { message: '文件 "js/broken.js" 为空或无法读取', paths: ['js/broken.js'] },
    ]);
  });

  it('merges duplicates: the same name, size and last-modified time', async () => {
    const first = await addFiles([], [picked('index.html', 10, 1)], rules, 'pick');
    const again = await addFiles(
      first.files,
      [picked('index.html', 10, 1), picked('index.html', 10, 1), picked('index.html', 11, 1)],
      rules,
      'drop',
    );
    expect(again.files.map((f) => [f.path, f.file.size])).toEqual([
      ['index.html', 10],
      ['index.html', 11],
    ]);
    expect(again.problems).toEqual([]);
  });

  it('refuses a whole batch that goes over the file count, keeping what was chosen', async () => {
    const current = [picked('a.html'), picked('b.css')];
    const result = await addFiles(current, [picked('c.js'), picked('d.js')], rules, 'drop');
    expect(result.files).toEqual(current);
    expect(result.problems).toEqual([
      {
        message:
          '文件数量超过限制。最多允许上传 3 个文件。可以改为选择整个文件夹（一个文件夹只算一项），或把文件打包成 zip 压缩包再上传',
        paths: ['c.js', 'd.js'],
      },
    ]);
  });

  it('counts a folder as one item against the file count, its files against the entry limit', async () => {
    const folder = (name: string, n: number) =>
      Array.from({ length: n }, (_, i) => picked(`${name}/p${i}.html`, 10));
    // A folder of five files and two loose files: three items, seven files… over the entry limit.
    const over = await addFiles([], [...folder('site', 5), picked('a.js'), picked('b.css')], rules, 'drop');
    expect(over.files).toEqual([]);
    expect(over.problems[0]?.message).toBe('文件夹中的文件数量超过限制。最多允许 6 个');
    // A folder of five files and one loose file: two items, six files.
    const ok = await addFiles([], [...folder('site', 5), picked('a.js')], rules, 'drop');
    expect(ok.files).toHaveLength(6);
    expect(ok.problems).toEqual([]);
    // Four items (three folders and a file) are over three, however few files they hold.
    const many = await addFiles(
      [],
      [...folder('a', 1), ...folder('b', 1), ...folder('c', 1), picked('d.js')],
      rules,
      'drop',
    );
    expect(many.problems[0]?.message).toMatch(
      /^文件数量超过限制。最多允许上传 3 个文件。可以改为选择整个文件夹/,
    );
    expect(uploadItemCount(['site/a.html', 'site/css/b.css', 'x.js'])).toBe(2);
  });

  it('lists a folder’s files home page first, then by path in natural order', async () => {
    const loose = { ...rules, maxEntries: 100 };
    const pages = [25, 16, 6, 2, 10].map((n) => picked(`site/p${n}.html`));
    const result = await addFiles(
      [],
      [...pages, picked('site/css/app.css'), picked('site/index.html'), picked('site/docs/index.html')],
      loose,
      'drop',
    );
    expect(result.files.map((f) => f.path)).toEqual([
      'site/index.html',
      'site/css/app.css',
      'site/docs/index.html',
      'site/p2.html',
      'site/p6.html',
      'site/p10.html',
      'site/p16.html',
      'site/p25.html',
    ]);
  });

  it('refuses a batch that goes over the total size', async () => {
    const result = await addFiles([picked('a.js', 4000)], [picked('b.js', 4000)], rules, 'pick');
    expect(result.files.map((f) => f.path)).toEqual(['a.js']);
    expect(result.problems[0]?.message).toBe('上传内容总大小超过限制。最大允许：5.86 KB');
  });

  it('leaves operating-system litter out silently', async () => {
    const result = await addFiles(
      [],
      [
        picked('site/.DS_Store'),
        picked('__MACOSX/site/._index.html'),
        picked('site/Thumbs.db'),
        picked('site/index.html'),
      ],
      rules,
      'drop',
    );
    expect(result.files.map((f) => f.path)).toEqual(['site/index.html']);
    expect(result.problems).toEqual([]);
  });

  it('uses the server defaults when given them (100 MB per file)', async () => {
    const defaults: UploadRules = {
      maxFiles: DEFAULT_LIMITS.maxFilesPerUpload,
      maxEntries: DEFAULT_LIMITS.maxArchiveEntries,
      maxFileBytes: DEFAULT_LIMITS.maxFileBytes,
      maxUploadBytes: DEFAULT_LIMITS.maxUploadBytes,
      allowedExtensions: DEFAULT_LIMITS.allowedExtensions,
      unknownFileTypes: DEFAULT_LIMITS.unknownFileTypes,
    };
    const huge = file('video.mp4', 1);
    Object.defineProperty(huge, 'size', { value: DEFAULT_LIMITS.maxFileBytes + 1 });
    const result = await addFiles([], [{ file: huge, path: 'video.mp4' }], defaults, 'pick');
    expect(result.problems[0]?.message).toBe('文件大小超过限制。最大允许：100 MB');
  });
});

describe('upload type', () => {
  it('is zip for exactly one .zip, .rar or .7z file, otherwise files', () => {
    expect(detectUploadType([picked('site.zip')])).toBe('zip');
    expect(detectUploadType([picked('site.RAR')])).toBe('zip');
    expect(detectUploadType([picked('folder/site.7z')])).toBe('zip');
    expect(detectUploadType([picked('index.html')])).toBe('files');
    expect(detectUploadType([picked('a.zip'), picked('b.zip')])).toBe('files');
    expect(detectUploadType([])).toBe('files');
  });

  it('goes into the multipart body with trimmed fields and each file under its relative path', () => {
    const form = uploadFormData([picked('site/index.html'), picked('site/css/app.css')], {
      project_name: '  我的站点 ',
      description: ' 描述 ',
    });
    expect(form.get('project_name')).toBe('我的站点');
    expect(form.get('description')).toBe('描述');
    expect(form.get('upload_type')).toBe('files');
    expect((form.getAll('files') as File[]).map((f) => f.name)).toEqual([
      'site/index.html',
      'site/css/app.css',
    ]);
  });
});

/* A fake of the browser's FileSystemEntry tree, as a dropped folder gives it. */
type FakeTree = { [name: string]: FakeTree | number };

function fakeEntry(name: string, node: FakeTree | number, batchSize = 2): FileSystemEntry {
  if (typeof node === 'number') {
    return {
      name,
      isFile: true,
      isDirectory: false,
      file: (ok: (f: File) => void) => ok(file(name, node)),
    } as unknown as FileSystemEntry;
  }
  const children = Object.entries(node).map(([child, value]) => fakeEntry(child, value, batchSize));
  return {
    name,
    isFile: false,
    isDirectory: true,
    // Like Chromium, the reader hands out a few entries per call, then an empty batch.
    createReader: () => {
      let offset = 0;
      return {
        readEntries: (ok: (entries: FileSystemEntry[]) => void) => {
          const batch = children.slice(offset, offset + batchSize);
          offset += batch.length;
          setTimeout(() => ok(batch), 0);
        },
      };
    },
  } as unknown as FileSystemEntry;
}

function fakeDrop(items: Array<{ entry: FileSystemEntry | null; file?: File }>): DataTransfer {
  const list = items.map(({ entry, file: f }) => ({
    kind: 'file',
    webkitGetAsEntry: () => entry,
    getAsFile: () => f ?? null,
  }));
  return { items: list, files: [] } as unknown as DataTransfer;
}

describe('dropped folders', () => {
  it('walks directories recursively, reading every batch, keeping relative paths', async () => {
    const tree = fakeEntry('site', {
      'index.html': 20,
      css: { 'app.css': 30, 'print.css': 5 },
      js: { vendor: { 'lib.js': 40 }, 'app.js': 10 },
      'about.html': 7,
    });
    const files = await walkEntry(tree);
    expect(files.map((f) => f.path).sort()).toEqual([
      'site/about.html',
      'site/css/app.css',
      'site/css/print.css',
      'site/index.html',
      'site/js/app.js',
      'site/js/vendor/lib.js',
    ]);
    expect(files.find((f) => f.path === 'site/js/vendor/lib.js')?.file.size).toBe(40);
  });

  it('takes folders and loose files of one drop together; items without an entry fall back to the file', async () => {
    const loose = file('logo.png', 12);
    const data = fakeDrop([
      { entry: fakeEntry('docs', { 'index.html': 3 }) },
      { entry: fakeEntry('readme.html', 4) },
      { entry: null, file: loose },
    ]);
    const files = await filesFromDataTransfer(data);
    expect(files.map((f) => f.path)).toEqual(['docs/index.html', 'readme.html', 'logo.png']);
  });

  it('fails when the browser cannot read a folder', async () => {
    const broken = {
      name: 'site',
      isFile: false,
      isDirectory: true,
      createReader: () => ({
        readEntries: (_ok: unknown, fail: (e: Error) => void) => fail(new Error('denied')),
      }),
    } as unknown as FileSystemEntry;
    await expect(filesFromDataTransfer(fakeDrop([{ entry: broken }]))).rejects.toThrow('denied');
  });

  it('uses the plain file list when the drop has no items', async () => {
    const data = { items: undefined, files: [file('a.html', 3)] } as unknown as DataTransfer;
    expect((await filesFromDataTransfer(data)).map((f) => f.path)).toEqual(['a.html']);
  });
});
