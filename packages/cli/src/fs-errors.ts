/**
 * A file-system error of the site's folder, said in Chinese. Node's errors (ENOENT: no such file or
 * directory, open '…') reached the user as they were, in English: a file that a build still running
 * removed between the listing and its read said only "ENOENT" (docs/decisions/deploys.md "CLI
 * messages").
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * What went wrong with a file, or null when `err` is not a file-system error naming a path. Said
 * for reading or writing alike (the CLI writes its settings, cache and link too), except where only
 * a site file's read can be meant (a file gone or replaced since the listing).
 */
export function fileSystemProblem(err: unknown, cwd = process.cwd()): string | null {
  if (!(err instanceof Error)) return null;
  const { code, path: file } = err as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof file !== 'string') return null;
  const relative = path.relative(cwd, file);
  const where = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  switch (code) {
    case 'ENOENT':
      return `文件已不存在：${where}（列出文件后它被删除或改名了：请在构建完成后再部署）`;
    case 'EACCES':
    case 'EPERM':
      return `没有权限访问：${where}`;
    case 'EISDIR':
      return `应为文件，却是目录：${where}（列出文件后它被替换了：请在构建完成后再部署）`;
    case 'ENOTDIR':
      return `路径中有一段已不是目录：${where}（列出文件后它被替换了：请在构建完成后再部署）`;
    case 'ELOOP':
      return `符号链接形成循环：${where}`;
    case 'EMFILE':
    case 'ENFILE':
      return `同时打开的文件过多，无法打开：${where}`;
    case 'EIO':
      return `磁盘出错：${where}`;
    default:
      return `无法访问：${where}（${code}）`;
  }
}

/**
 * `mkdir -p`: each missing folder of `dir` made in turn. Not Node's `mkdirSync(…, { recursive })`,
 * which never returns where the system answers ENOENT under a folder that exists (/proc, /sys): an
 * XDG_CACHE_HOME of /proc/x held the command for ever (docs/decisions/deploys.md "CLI hash cache").
 * Throws the system's error (ENOENT, ENOTDIR, EACCES) for the folder it could not make.
 */
export function makeFolders(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  // There already, as a file: mkdir's own EEXIST says so (a missing folder under a file: ENOTDIR).
  if (missing.length === 0 && !fs.statSync(dir).isDirectory()) fs.mkdirSync(dir);
  for (const folder of missing.reverse()) {
    try {
      fs.mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (err) {
      // Made meanwhile (another run of the command): as good.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
