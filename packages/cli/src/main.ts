/**
 * sitehall: deploy a static site to SiteHall from a terminal or a CI job (README "Deploy from the
 * command line"). Only the files the server doesn't hold are sent (a digest deploy); the server
 * reviews the new version as it would an upload.
 */

import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
// Plain modules of contracts (no zod), compiled into the CLI's own package: it installs without dependencies.
import { DESCRIPTION_MAX } from '../../contracts/src/limits.js';
import { canonicalManifest } from '../../contracts/src/manifest-digest.js';
import { deployMessages } from '../../contracts/src/messages/deploys.js';
import { projectMessages } from '../../contracts/src/messages/projects.js';
import { projectNameProblem, siteNameProblem } from '../../contracts/src/names.js';
import { Api, ApiError, changedWhileSent } from './api.js';
import { type BaseChanges, changesFrom, nfcEntries, readBase, writeBase } from './base.js';
import { HashCache } from './cache.js';
import { configFile, readCredentials, writeCredentials } from './config.js';
import { hashFiles, listFiles, mapLimit, refuseNameClashes, type SiteFile } from './files.js';
import { fileSystemProblem } from './fs-errors.js';
import { linkFile, readLink, removeLink, sameServer, writeLink } from './link.js';
import { Progress } from './progress.js';
import { changesBetween, WatchedFolder } from './watch.js';

const USAGE = `用法：
  sitehall login [--url 地址] [--token 令牌]   保存服务器地址和 API 令牌
  sitehall deploy 目录 [--project ID | --name 名称] [--site-name 站点名] [--description 描述]
                    [--spa on|off] [--wait 秒] [--no-cache] [--include-hidden] [--watch]
                                               部署目录（只上传服务器没有的文件；
                                               不给 --project 时部署到当前文件夹链接的项目；
                                               --site-name 设置或修改站点名，站点地址里用它代替编号；
                                               --spa on 开启单页应用回退（前端路由的站点），off 关闭；
                                               --wait 等页面运行检查最多这么多秒，打印它发现的问题
                                               （如前端路由），默认不等；
                                               --no-cache 不用本机哈希缓存，重新计算每个文件；
                                               --include-hidden 一并部署以 . 开头的隐藏文件，
                                               如 .env（默认跳过，.well-known 除外）；
                                               --watch 部署后继续监视目录，文件一改动就部署新版本，
                                               只发送改动，按 Ctrl+C 结束）
  sitehall link --project ID                   把当前文件夹链接到项目（写入 .sitehall/project.json）
  sitehall unlink                              取消当前文件夹的链接
  sitehall projects                            列出我的项目和状态
  sitehall whoami                              显示令牌所属的用户和服务器
  sitehall open [--project ID] [--no-browser]  显示项目地址（上线前为预览链接），并在浏览器中打开
  sitehall --version                           显示版本

deploy、projects、whoami、open 加 --json 时只向标准输出写一个 JSON（供 CI 使用）。

环境变量 SITEHALL_URL 和 SITEHALL_TOKEN 优先于 sitehall login 保存的配置；保存的令牌只发给保存时的服务器。
API 令牌在网页「个人设置 → API 令牌」中创建。`;

/** Files sent at once, one PUT each (a server without batches). */
const UPLOAD_CONCURRENCY = 8;
/** Batches sent at once, and the bytes one batch aims at (a larger file goes alone). */
const BATCHES_IN_FLIGHT = 3;
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * The server's words for a project's state (STATUS_LABELS in packages/contracts, copied: the CLI
 * installs on its own): every live site is 已发布, the featured one is 精选.
 */
const STATUS_LABELS: Record<string, string> = {
  pending: '待审核',
  approved: '已发布',
  published: '精选',
  rejected: '已拒绝',
  taken_down: '已下线',
};

/** A usability finding of the newest version (contracts' ContentFinding, the fields shown here). */
interface Finding {
  kind: string;
  message: string;
  file: string | null;
  line: number | null;
}

interface ProjectDto {
  id: number;
  name: string;
  status: string;
  access_url: string | null;
  site_name: string | null;
  latest_version: number | null;
  rejectionReason: string | null;
  thumbnail_url?: string | null;
  /** In a project's detail and a deploy's answer. */
  usability_findings?: Finding[];
}

/**
 * How long a deploy waits for the render's findings (a client-side router is seen only when the page
 * runs), asking once a second: `--wait SECONDS`, 0 by default (the static check's findings are in
 * the deploy's answer already, and a render takes seconds a deploy should not). The environment's
 * SITEHALL_RENDER_WAIT_MS is the tests' way to set it in milliseconds.
 */
const MAX_WAIT_SECONDS = 120;

function renderWait(value: string | undefined): number {
  if (value === undefined) return Number(process.env.SITEHALL_RENDER_WAIT_MS ?? 0);
  const seconds = Number(value);
  if (!/^\d{1,3}$/.test(value) || seconds > MAX_WAIT_SECONDS) {
    throw new UsageError(`--wait 应为 0 到 ${MAX_WAIT_SECONDS} 之间的秒数`);
  }
  return seconds * 1000;
}
/** Names (hidden ones, links) a deploy names when it leaves them out; the rest are counted. */
const LEFT_OUT_SHOWN = 5;
/** Findings printed after a deploy; the rest are on the project's page. */
const FINDINGS_SHOWN = 5;

class UsageError extends Error {}

const NEW_TOKEN_HINT =
  '请在网页「个人设置 → API 令牌」创建新令牌，然后运行 sitehall login --url 地址 --token 新令牌' +
  '（CI 中改为更新 SITEHALL_TOKEN）';

/** The package's version, from its package.json: one folder above src/ and above dist/ alike. */
function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String((pkg as { version?: unknown }).version);
}

function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `sitehall deploy --help`: the usage, whatever the command (each command's options are in it).
  if (command !== undefined && (rest.includes('--help') || rest.includes('-h')) && !rest.includes('--')) {
    console.log(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case 'login':
        return await login(rest);
      case 'deploy':
        return await deploy(rest);
      case 'projects':
        return await projects(rest);
      case 'link':
        return await link(rest);
      case 'unlink':
        return unlink(rest);
      case 'whoami':
        return await whoami(rest);
      case 'open':
        return await open(rest);
      case '--version':
      case '-v':
      case 'version':
        console.log(`sitehall ${version()}`);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`未知命令：${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      // The usage text would bury the error: one line says where it is.
      console.error(`错误：${err.message}\n运行 sitehall --help 查看用法`);
      return 2;
    }
    if (err instanceof ApiError && err.status === 401) {
      // The CLI signs in only with an API token: an answer that the sign-in is over (登录已过期 for a
      // string that is not a token at all) means the token, and the fix is a new one.
      const message = /令牌|登录已过期/.test(err.message) ? 'API 令牌无效或已被撤销' : err.message;
      console.error(`错误：${message}\n${NEW_TOKEN_HINT}`);
      return 1;
    }
    if (err instanceof ApiError) {
      console.error(`错误：${err.message}`);
      return 1;
    }
    console.error(`错误：${problemOf(err)}`);
    return 1;
  }
}

function parse<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(argumentProblem(err));
  }
}

/** Node's argument parser says what is wrong in English: the same, said in Chinese. */
function argumentProblem(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const option = /'(-[^']*)'/.exec(text)?.[1] ?? '';
  switch ((err as { code?: string } | null)?.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `未知选项：${option}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(text)) return `选项 ${option.split(' ')[0]} 需要一个值`;
      // `--project -1`: Node takes a value that starts with '-' for another option ("ambiguous").
      if (/ambiguous/.test(text)) {
        const name = option.split(' ')[0] ?? option;
        return `选项 ${name} 的值不能以 - 开头（如确需如此，请写成 ${name}=值）`;
      }
      return `选项 ${option} 不接受值`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `多余的参数：${/'([^']*)'/.exec(text)?.[1] ?? ''}`;
    default:
      return text;
  }
}

/** What an error that ends a command says: a file's problem in Chinese (fs-errors.ts), else its message. */
function problemOf(err: unknown): string {
  return fileSystemProblem(err) ?? (err instanceof Error ? err.message : String(err));
}

/** The first LEFT_OUT_SHOWN of some names, and how many there are when that is not all. */
function shortList(names: readonly string[]): string {
  const shown = names.slice(0, LEFT_OUT_SHOWN).join('、');
  return names.length > LEFT_OUT_SHOWN ? `${shown} 等 ${names.length} 项` : shown;
}

/** Says which names of the folder a deploy left out, the first LEFT_OUT_SHOWN and a count. */
function sayLeftOut(what: string, names: readonly string[], why: string): void {
  if (names.length === 0) return;
  console.error(`已跳过${what}：${shortList(names)}（${why}）`);
}

/** A server address the CLI can use: http or https, with a host. */
function serverAddress(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.host) {
    throw new UsageError(
      `服务器地址无效：${url}（应以 http:// 或 https:// 开头，如 https://sites.example.com）`,
    );
  }
  return url;
}

/**
 * The working folder's link to a project, written after a deploy that succeeded: a folder where it
 * can't be written (a read-only checkout in CI) is said, not a failure, since the version exists
 * and a retry with --name would make the project twice (docs/decisions/deploys.md "CLI project link").
 */
function linkAfterDeploy(link: Parameters<typeof writeLink>[0]): string | null {
  try {
    return writeLink(link);
  } catch (err) {
    const why = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    console.error(
      `无法在当前文件夹保存项目链接（${why}）：以后请用 --project ${link.project_id} 部署到这个项目`,
    );
    return null;
  }
}

function connect(): Api {
  const { url, token } = readCredentials();
  if (!url || !token) {
    throw new UsageError(
      '没有服务器地址或令牌：请先运行 sitehall login，或设置 SITEHALL_URL 和 SITEHALL_TOKEN',
    );
  }
  // SITEHALL_URL is checked as login checks --url: Node's "Invalid URL" said nothing useful.
  return new Api(serverAddress(url), token);
}

async function login(args: string[]): Promise<number> {
  const { values } = parse(args, { url: { type: 'string' }, token: { type: 'string' } });
  const saved = readCredentials();
  let url = values.url ?? process.env.SITEHALL_URL;
  let token = values.token ?? process.env.SITEHALL_TOKEN;
  if (!url || !token) {
    if (!process.stdin.isTTY) throw new UsageError('请用 --url 和 --token 提供服务器地址和令牌');
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      url ||= (await rl.question(`服务器地址${saved.url ? `（${saved.url}）` : ''}：`)).trim() || saved.url;
      token ||= (await rl.question('API 令牌：')).trim();
    } finally {
      rl.close();
    }
  }
  if (!url || !token) throw new UsageError('服务器地址和令牌都不能为空');
  const api = new Api(serverAddress(url), token);
  const { user } = await api.call<{ user: { username: string } }>('GET', '/api/auth/profile');
  let file: string;
  try {
    file = writeCredentials({ url, token });
  } catch (err) {
    // The settings' folder can't be made or written (XDG_CONFIG_HOME naming a file, /proc, a
    // read-only home): said with the system's code and the ways round it, not as a site file's.
    const why = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    throw new Error(
      `无法保存配置到 ${path.dirname(configFile())}（${why}）：请设置可写的 XDG_CONFIG_HOME，或改用环境变量 SITEHALL_URL 和 SITEHALL_TOKEN`,
    );
  }
  console.log(`已登录为 ${user.username}，配置已保存到 ${file}`);
  return 0;
}

async function projects(args: string[]): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  const api = connect();
  const { projects: list } = await api.call<{ projects: ProjectDto[] }>(
    'GET',
    '/api/projects/my?page_size=100',
  );
  const addresses = await Promise.all(list.map((p) => (p.access_url ? api.siteLink(p.access_url) : null)));
  if (values.json) {
    printJson(
      list.map((p, i) => ({
        id: p.id,
        name: p.name,
        status: p.status,
        latest_version: p.latest_version,
        access_url: addresses[i],
      })),
    );
    return 0;
  }
  if (list.length === 0) {
    console.log('还没有项目。用 sitehall deploy 目录 --name 名称 部署第一个。');
    return 0;
  }
  for (const [i, p] of list.entries()) {
    const status = STATUS_LABELS[p.status] ?? p.status;
    const url = addresses[i] ? `  ${addresses[i]}` : '';
    console.log(`${String(p.id).padStart(5)}  ${status.padEnd(8)}  ${p.name}${url}`);
  }
  return 0;
}

async function deploy(args: string[]): Promise<number> {
  // A watch begun for the deploy ends with it, unless the deploy went on to watch (it then ends
  // with the watch): a refused first deploy exits as it would without --watch.
  const begun: WatchedFolder[] = [];
  try {
    return await deployFolder(args, begun);
  } finally {
    for (const folder of begun) folder.close();
  }
}

async function deployFolder(args: string[], begun: WatchedFolder[]): Promise<number> {
  const { values, positionals } = parse(args, {
    project: { type: 'string' },
    name: { type: 'string' },
    'site-name': { type: 'string' },
    description: { type: 'string' },
    spa: { type: 'string' },
    wait: { type: 'string' },
    'no-cache': { type: 'boolean' },
    'include-hidden': { type: 'boolean' },
    watch: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('请指定一个要部署的目录');
  // One JSON document on standard output is a single deploy's answer; a watch goes on deploying.
  if (values.watch && values.json) throw new UsageError('--watch 不能与 --json 同时使用');
  const waitMs = renderWait(values.wait);
  if (values.spa !== undefined && values.spa !== 'on' && values.spa !== 'off') {
    throw new UsageError('--spa 只能是 on 或 off');
  }
  const spaFallback = values.spa === undefined ? undefined : values.spa === 'on';
  if (values.project !== undefined && values.name !== undefined) {
    throw new UsageError('--project 和 --name 只能选一个');
  }
  // Every argument is checked before a file is read or hashed (the server's rules, from contracts).
  if (values.project !== undefined) projectNumber(values.project);
  const nameProblem = values.name === undefined ? null : projectNameProblem(values.name);
  if (nameProblem) throw new UsageError(`--name：${nameProblem}`);
  const siteNameAsked = values['site-name']?.trim().toLowerCase();
  const siteProblem = siteNameAsked === undefined ? null : siteNameProblem(siteNameAsked);
  if (siteProblem) throw new UsageError(`--site-name：${siteProblem}`);
  if (values.description !== undefined && values.description.trim().length > DESCRIPTION_MAX) {
    throw new UsageError(`--description：${projectMessages.descriptionTooLong}`);
  }
  const dir = path.resolve(positionals[0]!);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`不是目录：${dir}`);
  const { url } = readCredentials();
  const api = connect();
  // The project: --project, else this folder's link (sitehall link), else a new one by --name only:
  // a forgotten --project never makes a project named after the folder.
  const saved = readLink();
  const linked = saved && url && sameServer(saved.url, url) ? saved : undefined;
  const projectId =
    values.project !== undefined
      ? projectNumber(values.project)
      : values.name === undefined
        ? linked?.project_id
        : undefined;
  if (projectId === undefined && values.name === undefined) {
    throw new UsageError(
      saved
        ? `当前文件夹链接的是 ${saved.url} 上的项目 ${saved.project_id}，不是 ${url}：` +
            '用 --project ID 指定项目，或运行 sitehall link --project ID 重新链接'
        : '当前文件夹还没有链接到项目：用 --project ID 部署到已有项目（sitehall projects 可查看编号），' +
            '用 sitehall link --project ID 链接后直接 sitehall deploy，或用 --name 名称 创建新项目',
    );
  }

  // A watch collects the folder's events from before its listing: nothing changed during the
  // deploy is missed (watch.ts).
  const watched = values.watch ? new WatchedFolder(dir, values['include-hidden'] === true) : undefined;
  if (watched) {
    begun.push(watched);
    watched.start();
  }
  const listed = listFiles(dir, { includeHidden: values['include-hidden'] === true });
  watched?.adopt(listed);
  sayLeftOut('隐藏文件', listed.hidden, '可能含密钥；确需部署请加 --include-hidden');
  sayLeftOut('符号链接', listed.links, '只部署普通文件；需要的话请把链接换成实际文件');
  sayLeftOut('特殊文件（管道、套接字等）', listed.special, '只部署普通文件');
  if (listed.length === 0) throw new UsageError(`目录中没有文件：${dir}`);
  // Names the server would take for one (NFC, case): said before a file is read.
  refuseNameClashes(listed.map((f) => f.path));
  if (!listed.some((f) => f.path === 'index.html')) {
    console.error('警告：目录根部没有 index.html，站点首页将无法打开；仍继续部署');
  }
  const cache = values['no-cache'] ? undefined : HashCache.load(dir);
  // The listed files become the site's files as their hashes are known (no copy of each).
  const files: SiteFile[] = listed;
  const toHash: number[] = [];
  listed.forEach((f, i) => {
    const sha256 = cache?.lookup(f);
    if (sha256) f.sha256 = sha256;
    else toHash.push(i);
  });
  if (cache && toHash.length < listed.length) {
    console.error(`哈希缓存：${listed.length - toHash.length} 个文件未改动，计算 ${toHash.length} 个`);
  }
  const hashing = new Progress('计算哈希', toHash.length);
  await hashFiles(listed, toHash, (n) => hashing.update(n));
  // The hash cache is written while the server reads the manifest (a 5,000-file cache is ~10 ms of
  // this process's time, which was on the deploy's path); at the latest once the start is answered.
  let cacheSaved = false;
  const saveCache = () => {
    if (cacheSaved) return;
    cacheSaved = true;
    cache?.save(files, toHash);
  };

  // The manifest as entries of NFC path and SHA-256 (an object only when the whole of it is sent).
  const manifest = nfcEntries(files);
  const target =
    projectId !== undefined
      ? { project_id: projectId }
      : {
          project_name: values.name!,
          ...(values.description ? { description: values.description } : {}),
        };
  // The version this folder last deployed to this project, when it was to this server: only the
  // changes against it are sent (docs/decisions/deploys.md "Base-version deploys").
  const record = values['no-cache'] || projectId === undefined || !url ? undefined : readBase(dir);
  const base =
    record && record.project_id === projectId && sameServer(record.url, url!)
      ? changesFrom(record, manifest)
      : undefined;
  type Started = {
    deploy_id: string;
    required: string[];
    unchanged_version?: number;
    batch?: { max_files: number };
  };
  const startWith = (sent: BaseChanges | { files: Record<string, string> }) =>
    api.call<Started>(
      'POST',
      '/api/deploys',
      {
        ...target,
        ...(projectId !== undefined && values.description ? { description: values.description } : {}),
        ...(values['site-name'] !== undefined ? { site_name: values['site-name'] } : {}),
        ...sent,
      },
      {},
      { onSent: saveCache },
    );
  const whole = () => ({ files: Object.fromEntries(manifest) });
  const started = await (base ? startWith(base) : startWith(whole()))
    .catch((err: unknown) => {
      // The server does not know the recorded base as it is (a stale or corrupt record, another
      // server's database): the whole manifest, in the same run.
      if (base && err instanceof ApiError && err.status === 409 && err.errors?.base_version !== undefined)
        return startWith(whole());
      throw err;
    })
    .finally(saveCache);
  /**
   * The manifest's canonical text for the record (base.ts), built while the server works on the
   * finish (or the start), not after its answer.
   */
  let canonical: string | undefined;
  const prepareRecord = () => {
    if (!values['no-cache'] && url) setImmediate(() => (canonical ??= canonicalManifest(manifest)));
  };
  /** Remembers what the server now has for this folder: the next deploy builds on it. */
  const remember = (project: { id: number }, version: number | null | undefined) => {
    if (values['no-cache'] || !url || !version) return;
    canonical ??= canonicalManifest(manifest);
    writeBase(dir, { url, project_id: project.id, version, files: manifest }, process.env, canonical);
  };
  if (started.unchanged_version !== undefined) {
    // Every file the same as the newest version: the server opened nothing, and says so. What was
    // asked of the project itself (its site name, its description) is still done.
    const asked = {
      ...(values['site-name'] !== undefined ? { site_name: values['site-name'] } : {}),
      ...(values.description ? { description: values.description } : {}),
      ...(spaFallback !== undefined ? { spa_fallback: spaFallback } : {}),
    };
    const { project } =
      Object.keys(asked).length > 0
        ? await api.call<{ project: ProjectDto }>('PUT', `/api/projects/${projectId}`, asked)
        : await api.call<{ project: ProjectDto }>('GET', `/api/projects/${projectId}`);
    if (!saved && url) linkAfterDeploy({ url, project_id: project.id, name: project.name });
    remember(project, started.unchanged_version);
    const address = project.access_url ? await api.siteLink(project.access_url) : null;
    if (values.json) {
      printJson({
        project_id: project.id,
        name: project.name,
        version: started.unchanged_version,
        status: project.status,
        access_url: address,
        unchanged: true,
      });
      return 0;
    }
    console.log(
      `没有改动：${files.length} 个文件与项目 ${project.id}「${project.name}」第 ${started.unchanged_version} 版完全相同，未创建新版本`,
    );
    if (asked.site_name !== undefined) console.log(`站点名已设为 ${project.site_name}`);
    if (asked.description !== undefined) console.log('项目描述已更新');
    if (asked.spa_fallback !== undefined)
      console.log(`单页应用回退已${asked.spa_fallback ? '开启' : '关闭'}`);
    if (address) console.log(`线上地址：${address}`);
    if (watched) return watchFolder(watchFrom(watched, project.id, started.unchanged_version));
    return 0;
  }

  // One file for each required content (a content at several paths is sent once).
  const wanted = new Set(started.required);
  const required = files.filter((f) => wanted.delete(f.sha256));
  const bytes = required.reduce((sum, f) => sum + f.size, 0);
  console.error(`共 ${files.length} 个文件，需要上传 ${required.length} 个（${formatBytes(bytes)}）`);
  const uploading = new Progress('上传文件', required.length);
  const finished = await cancelledUnlessDone(
    api,
    started.deploy_id,
    async () => {
      await sendFiles(api, started, required, (n) => uploading.update(n));
      return finishDeploy(api, started.deploy_id, () => {
        prepareRecord();
        // The sites' port (for the addresses printed below), asked while the server finishes.
        api.siteLink('/').catch(() => undefined);
      });
    },
    true,
  );
  // The SPA fallback is the project's switch, set once the version is there; the deploy stands
  // whatever this answers.
  let { project } = finished;
  remember(project, project.latest_version);
  if (spaFallback !== undefined) {
    try {
      ({ project } = await api.call<{ project: ProjectDto }>('PUT', `/api/projects/${project.id}`, {
        spa_fallback: spaFallback,
      }));
      console.error(`单页应用回退已${spaFallback ? '开启' : '关闭'}`);
    } catch (err) {
      console.error(`已部署，但单页应用回退未能设置：${err instanceof Error ? err.message : String(err)}`);
    }
  }
  let previewUrl: string | null = null;
  try {
    const preview = await api.call<{ preview_url: string }>(
      'POST',
      `/api/projects/${project.id}/preview-token`,
    );
    previewUrl = await api.siteLink(preview.preview_url);
  } catch (err) {
    // The deploy succeeded; only the link could not be made.
    console.error(`预览链接暂不可用：${err instanceof Error ? err.message : String(err)}`);
  }
  const accessUrl = project.access_url ? await api.siteLink(project.access_url) : null;
  const findings = await usabilityFindings(api, project, spaFallback === true, waitMs);
  const linkedNow =
    !saved && url ? linkAfterDeploy({ url, project_id: project.id, name: project.name }) : null;
  if (values.json) {
    printJson({
      project_id: project.id,
      name: project.name,
      version: project.latest_version,
      status: project.status,
      preview_url: previewUrl,
      access_url: accessUrl,
      unchanged: false,
      usability_findings: findings,
    });
    return 0;
  }
  console.log(`已部署：项目 ${project.id}「${project.name}」第 ${project.latest_version ?? '?'} 版`);
  console.log(`审核状态：${STATUS_LABELS[project.status] ?? project.status}`);
  if (previewUrl) console.log(`预览链接：${previewUrl}`);
  if (accessUrl) console.log(`线上地址：${accessUrl}`);
  printFindings(findings, `${positionals[0]} --project ${project.id}`, api.link(`/projects/${project.id}`));
  if (waitMs === 0) {
    console.error(
      `页面运行检查（如前端路由）稍后完成，结果见 ${api.link(`/projects/${project.id}`)}（加 --wait 30 可等待并打印）`,
    );
  }
  if (linkedNow) {
    console.log(
      `当前文件夹已链接到项目 ${project.id}（${path.relative(process.cwd(), linkedNow)}）：以后 sitehall deploy ${positionals[0]} 即可更新`,
    );
  } else if (projectId === undefined) {
    console.log(`以后更新此项目：sitehall deploy ${positionals[0]} --project ${project.id}`);
  }
  if (watched && project.latest_version)
    return watchFolder(watchFrom(watched, project.id, project.latest_version));
  return 0;

  /** What a watch starts from: the version just deployed (or found unchanged) and this folder's files. */
  function watchFrom(folder: WatchedFolder, id: number, deployedVersion: number): WatchContext {
    return {
      api,
      dir,
      label: positionals[0]!,
      url: url!,
      projectId: id,
      folder,
      version: deployedVersion,
      manifest: new Map(manifest),
      canonical,
      keepRecord: !values['no-cache'],
    };
  }
}

type StartedDeploy = { deploy_id: string; required: string[]; batch?: { max_files: number } };

/** How long a cancel may take before the command goes on (the server may be what failed). */
const CANCEL_WAIT_MS = 5_000;

/**
 * Runs a started deploy's sending and finish; one that fails on the way, or is stopped with
 * Ctrl+C (`onInterrupt`: the one-shot command; a watch has its own), is cancelled on the server,
 * so its bytes don't hold the account's quota, nor its place among the 5 open deploys, until it
 * would have expired (docs/decisions/deploys.md "Cancelled deploys").
 */
async function cancelledUnlessDone<T>(
  api: Api,
  deployId: string,
  run: () => Promise<T>,
  onInterrupt = false,
): Promise<T> {
  const cancel = () =>
    Promise.race([
      api.call('DELETE', `/api/deploys/${deployId}`).catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref()),
    ]);
  // Ctrl+C, or SIGTERM (what a CI runner's cancel and `timeout` send): the deploy is cancelled
  // first, so that it holds neither quota nor one of the account's open deploys until it expires.
  const stopBy = (signal: 'SIGINT' | 'SIGTERM', code: number) => () => {
    console.error(
      signal === 'SIGINT' ? '\n正在取消部署…（再按一次 Ctrl+C 立即退出）' : '\n收到终止信号，正在取消部署…',
    );
    void cancel().finally(() => process.exit(code));
  };
  const interrupted = stopBy('SIGINT', 130);
  const terminated = stopBy('SIGTERM', 143);
  if (onInterrupt) {
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', terminated);
  }
  try {
    return await run();
  } catch (err) {
    await cancel();
    throw err;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', terminated);
  }
}

/** Sends the files a started deploy asked for: in batches when the server takes them, else one PUT each. */
async function sendFiles(
  api: Api,
  started: StartedDeploy,
  required: readonly SiteFile[],
  onSent?: (n: number) => void,
): Promise<void> {
  try {
    if (started.batch) {
      // Several files per request (docs/decisions/deploys.md "Batched file uploads").
      let sent = 0;
      await mapLimit(batchesOf(required, started.batch.max_files), BATCHES_IN_FLIGHT, async (batch) => {
        await api.postFiles(`/api/deploys/${started.deploy_id}/files`, batch);
        sent += batch.length;
        onSent?.(sent);
      });
    } else {
      await mapLimit(
        required,
        UPLOAD_CONCURRENCY,
        (f) => api.putFile(`/api/deploys/${started.deploy_id}/files/${f.sha256}`, f.file, f.size),
        onSent,
      );
    }
  } catch (err) {
    throw await namingFiles(api, err, required);
  }
}

const FILE_TOO_LARGE = projectMessages.fileTooLarge.slice(0, projectMessages.fileTooLarge.indexOf('{'));
const HASH_MISMATCH = deployMessages.hashMismatch.slice(0, deployMessages.hashMismatch.indexOf('{'));

/**
 * A refused transfer said with the folder's files it was about, where the server's words name only
 * a limit or a SHA-256 (docs/decisions/deploys.md "CLI messages"): the files over the server's
 * file size limit (its public config, asked once the refusal came), or the file whose bytes no
 * longer match the hash it was listed with (changed in place while the deploy ran, its size kept:
 * a change of size is caught as the file is sent).
 */
async function namingFiles(api: Api, err: unknown, required: readonly SiteFile[]): Promise<unknown> {
  if (!(err instanceof ApiError)) return err;
  const said = (message: string) => new ApiError(message, err.status, err.errors, err.retryAfter);
  if (err.status === 413 && err.message.startsWith(FILE_TOO_LARGE)) {
    const max = await api
      .call<{ limits: { max_file_bytes: number } }>('GET', '/api/config/public')
      .then((config) => config.limits.max_file_bytes)
      .catch(() => undefined);
    const over = max === undefined ? [] : required.filter((f) => f.size > max);
    if (over.length > 0) {
      return said(
        `${err.message}；超过的文件：${shortList(over.map((f) => `${f.file}（${formatBytes(f.size)}）`))}`,
      );
    }
  }
  const hash = err.message.startsWith(HASH_MISMATCH) ? /[0-9a-f]{64}/.exec(err.message)?.[0] : undefined;
  const changed = hash && required.find((f) => f.sha256 === hash);
  if (changed) return changedWhileSent(changed.file, err.status);
  return err;
}

/**
 * Finishes a deploy. One key for this finish: when the connection drops before the answer, the
 * finish is sent again with it, and the server answers with the version it stored, never a second
 * one. `meanwhile` runs once the finish is sent.
 */
async function finishDeploy(
  api: Api,
  deployId: string,
  meanwhile?: () => void,
): Promise<{ project: ProjectDto }> {
  const key = `cli-${randomUUID()}`;
  const finish = () =>
    api.call<{ project: ProjectDto }>(
      'POST',
      `/api/deploys/${deployId}/finish`,
      undefined,
      { 'idempotency-key': key },
      { slow: true },
    );
  const finishing = finish();
  meanwhile?.();
  return finishing.catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 0) return finish();
    throw err;
  });
}

/** What `deploy --watch` needs from the deploy it follows. */
interface WatchContext {
  api: Api;
  dir: string;
  /** The folder as the command named it (in printed commands). */
  label: string;
  url: string;
  projectId: number;
  /** The folder as listed and hashed for that deploy, with the events since its listing. */
  folder: WatchedFolder;
  /** The version the server holds for this folder now, and its manifest (NFC path → SHA-256). */
  version: number;
  manifest: Map<string, string>;
  /** The manifest's canonical text, when already built. */
  canonical: string | undefined;
  /** Whether to write the base record and the hash cache (not with --no-cache). */
  keepRecord: boolean;
}

/** A failed watch deploy is tried again after this long when nothing changes meanwhile. */
const WATCH_RETRY_MS = 60_000;

/**
 * `sitehall deploy --watch` (docs/decisions/deploys.md "Watching a folder"): after the deploy, the
 * folder is watched, and once it is still (watch.ts, WATCH_QUIET_MS) its changes are deployed as a
 * new version built on the last one (a base-version deploy: only the changed paths are sent, and
 * only new contents uploaded). One deploy at a time; changes made meanwhile go in the next. A
 * refused deploy (the hourly limit, the quota, a bad name) is said and the watch goes on: the next
 * change, or a minute, tries again. Ends on Ctrl+C (SIGINT) or SIGTERM, or when the token is
 * refused or the folder can no longer be watched.
 */
async function watchFolder(ctx: WatchContext): Promise<number> {
  const { api, dir, projectId } = ctx;
  const { folder } = ctx;
  let version = ctx.version;
  let deployed = ctx.manifest;
  let digest: string | undefined;
  const digestOf = (canonical: string) => createHash('sha256').update(canonical).digest('hex');
  // The deployed manifest's digest (and the folder's record of it), built while nothing else runs.
  let canonical = ctx.canonical;
  const record = () => {
    canonical ??= canonicalManifest(deployed);
    digest ??= digestOf(canonical);
    if (ctx.keepRecord)
      writeBase(
        dir,
        { url: ctx.url, project_id: projectId, version, files: [...deployed] },
        process.env,
        canonical,
      );
  };
  setImmediate(record);

  let stop!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    stop = resolve;
  });
  let running = false;
  /** A deploy failed: the folder's changes are still to go, with or without a new event. */
  let owed = false;
  let retry: NodeJS.Timeout | undefined;
  /**
   * Refused as too frequent (429: the hourly upload limit, the start rate): until this moment
   * (performance.now()) a change asks nothing, since a refused start counts against the start rate
   * too and a save every few seconds would keep the account refused for as long as it went on; the
   * changes made meanwhile go in one deploy when the wait is over.
   */
  let heldUntil = 0;
  /** Whether a change during the wait was said already (once a wait). */
  let heldSaid = false;
  /**
   * Ctrl+C or SIGTERM came: no deploy starts, one being sent is cancelled on the server (it would
   * otherwise hold quota and an open-deploy place until it expired), one whose finish was sent is
   * waited for (the version exists or is about to), then the watch ends.
   */
  let stopping = false;
  /** The deploy under way once the server started it; `finishing` once its finish was sent. */
  let current: { deployId: string; finishing: boolean } | undefined;

  /** One deploy of the folder's changes against `version`; false when it was refused. */
  const deployChanges = async (): Promise<boolean> => {
    const began = performance.now();
    owed = false;
    // A file gone between its event and its read: the folder is looked at again (a few times).
    for (let tries = 1; !(await folder.refresh()) && tries < 3; tries++);
    const now = folder.manifest();
    const changes = changesBetween(deployed, now);
    const changed = Object.keys(changes).length;
    if (changed === 0) return true;
    if (now.size === 0) {
      console.error(`${clock()} 目录中没有文件，等待下一次改动`);
      return true;
    }
    if (stopping) return true;
    canonical ??= canonicalManifest(deployed);
    digest ??= digestOf(canonical);
    const start = (body: object) =>
      api
        .call<StartedDeploy & { deploy_id: string | null; unchanged_version?: number }>(
          'POST',
          '/api/deploys',
          {
            project_id: projectId,
            ...body,
          },
        )
        .catch((err: unknown) => {
          // The project deleted, or no longer this account's to update: no later change can go.
          if (err instanceof ApiError && err.status === 404) throw new ProjectGone(err.message);
          throw err;
        });
    const started = await start({ base_version: version, base_digest: digest, changes }).catch(
      (err: unknown) => {
        // The version is gone or not as this watch knows it: the whole manifest.
        if (err instanceof ApiError && err.status === 409 && err.errors?.base_version !== undefined)
          return start({ files: Object.fromEntries(now) });
        throw err;
      },
    );
    const accepted = (v: number) => {
      version = v;
      deployed = now;
      canonical = undefined;
      digest = undefined;
      setImmediate(record);
    };
    if (started.unchanged_version !== undefined || started.deploy_id === null) {
      accepted(started.unchanged_version!);
      console.log(`${clock()} 与第 ${version} 版完全相同，未创建新版本`);
      return true;
    }
    const wanted = new Set(started.required);
    const required = [...folder.files.values()].filter((f) => wanted.delete(f.sha256));
    const deployId = started.deploy_id;
    current = { deployId, finishing: false };
    const { project } = await cancelledUnlessDone(api, deployId, async () => {
      if (!stopping) await sendFiles(api, started as StartedDeploy, required);
      // Stopped while it was being sent: not finished (cancelledUnlessDone cancels it).
      if (stopping) throw new WatchStopped();
      current!.finishing = true;
      return finishDeploy(api, deployId);
    }).finally(() => {
      current = undefined;
    });
    accepted(project.latest_version ?? version);
    const ms = Math.round(performance.now() - began);
    console.log(
      `${clock()} 已部署第 ${version} 版：${changed} 个文件有改动，上传 ${required.length} 个（${ms} 毫秒）`,
    );
    const findings = project.usability_findings ?? [];
    if (findings.length > 0)
      console.log(`  发现 ${findings.length} 个可用性问题，见 ${api.link(`/projects/${projectId}`)}`);
    return true;
  };

  const run = async () => {
    if (running) return;
    if (performance.now() < heldUntil) {
      if (!heldSaid) {
        heldSaid = true;
        const at = new Date(Date.now() + heldUntil - performance.now()).toTimeString().slice(0, 8);
        console.error(`${clock()} 有改动，将在 ${at} 一并部署`);
      }
      return;
    }
    running = true;
    if (retry) clearTimeout(retry);
    retry = undefined;
    try {
      // Changes made while a deploy ran go in the next one.
      while ((folder.dirty || owed) && !stopping) await deployChanges();
    } catch (err) {
      // Stopped meanwhile: the failure is the cancel's doing (or no longer anyone's concern).
      if (stopping) return;
      if (err instanceof ProjectGone) {
        console.error(
          `${clock()} 错误：${err.message}（项目 ${projectId} 已被删除，或此账号已无权更新它），停止监视`,
        );
        stop(1);
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        console.error(`${clock()} 错误：API 令牌无效或已被撤销，停止监视
${NEW_TOKEN_HINT}`);
        stop(1);
        return;
      }
      console.error(`${clock()} 部署失败：${problemOf(err)}`);
      // As long as the server asks (the hourly upload limit: until a slot frees), else a minute.
      const wait =
        err instanceof ApiError && err.retryAfter !== undefined
          ? Math.max(1000, err.retryAfter * 1000)
          : WATCH_RETRY_MS;
      owed = true;
      if (err instanceof ApiError && err.status === 429) {
        // Too frequent: nothing is asked before the wait is over, whatever changes meanwhile.
        heldUntil = performance.now() + wait;
        heldSaid = false;
        console.error(`  ${formatWait(wait)}后再试，期间的改动届时一并部署`);
        retry = setTimeout(() => {
          heldUntil = 0;
          void run();
        }, wait);
      } else {
        console.error(`  下一次改动时（或 ${formatWait(wait)}后）再试`);
        retry = setTimeout(run, wait);
      }
    } finally {
      running = false;
      if (stopping) stop(0);
    }
    // An event between the loop's last check and now.
    if (folder.dirty && !retry) setImmediate(run);
  };

  console.error(`正在监视 ${ctx.label} 的改动，保存文件即部署新版本（按 Ctrl+C 结束）`);
  folder.listen(run, (err) => {
    console.error(`${clock()} 无法继续监视目录：${err.message}`);
    stop(1);
  });
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal while a deploy is being cancelled or finished: at once.
    if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
    stopping = true;
    if (!running) {
      stop(0);
      return;
    }
    if (current?.finishing) {
      console.error(`\n${clock()} 正在等待进行中的部署完成…（再按一次 Ctrl+C 立即退出）`);
      return;
    }
    console.error(`\n${clock()} 正在取消进行中的部署…（再按一次 Ctrl+C 立即退出）`);
    // Its transfers are given up now (not after a batch's answer): their failure ends the send,
    // and cancelledUnlessDone cancels the deploy; run ends the watch once it returns. A start not
    // yet answered is let be: its deploy's id comes with the answer, and deployChanges cancels it.
    if (current) api.abortRequests();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await stopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  folder.close();
  if (retry) clearTimeout(retry);
  if (ctx.keepRecord) HashCache.load(dir).rewrite([...folder.files.values()].filter((f) => f.sha256));
  if (code === 0) console.error('已停止监视');
  return code;
}

/** A watch's project answered 404 at a deploy's start: the watch ends. */
class ProjectGone extends Error {}

/** A watch's deploy stopped by Ctrl+C or SIGTERM before its finish was sent. */
class WatchStopped extends Error {}

/** A wait as people say it: 45 秒, 3 分钟. */
function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 60 ? `${seconds} 秒` : `${Math.ceil(seconds / 60)} 分钟`;
}

/** The time of day, for a watch's lines. */
function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

/**
 * The newest version's usability findings: the deploy's answer has the static check's; the render's
 * (a client-side router) come later, so while they may still come, the project is asked again for
 * up to `waitMs` (--wait), until its picture is taken (the render is done). `spaOn`: the fallback was
 * just turned on, which answers the router's finding.
 */
async function usabilityFindings(
  api: Api,
  project: ProjectDto,
  spaOn: boolean,
  waitMs: number,
): Promise<Finding[]> {
  let latest = project;
  const until = Date.now() + waitMs;
  const routerSeen = () => latest.usability_findings?.some((f) => f.kind === 'history_routing');
  while (!spaOn && !routerSeen() && latest.thumbnail_url === project.thumbnail_url && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000, until - Date.now())));
    try {
      ({ project: latest } = await api.call<{ project: ProjectDto }>('GET', `/api/projects/${project.id}`));
    } catch {
      break;
    }
  }
  return latest.usability_findings ?? [];
}

/** A few lines: what keeps the site from working as deployed, and where the rest is. */
function printFindings(findings: readonly Finding[], deployArgs: string, page: string): void {
  if (findings.length === 0) return;
  console.log(`发现 ${findings.length} 个可用性问题（访客打开站点时会遇到）：`);
  for (const f of findings.slice(0, FINDINGS_SHOWN)) {
    const at = f.file ? `（${f.file}${f.line ? `:${f.line}` : ''}）` : '';
    console.log(`  - ${f.message}${at}`);
    if (f.kind === 'history_routing') {
      console.log(`    开启单页应用回退：sitehall deploy ${deployArgs} --spa on`);
    }
  }
  const more = findings.length - FINDINGS_SHOWN;
  console.log(more > 0 ? `  还有 ${more} 个，修改方法见 ${page}` : `  修改方法见 ${page}`);
}

function projectNumber(value: string): number {
  // Digits only: Number() took 1e3 and 0x1 as projects 1000 and 1.
  const id = /^\d{1,15}$/.test(value) ? Number(value) : 0;
  if (!(Number.isInteger(id) && id > 0)) {
    throw new UsageError('--project 应为项目编号（sitehall projects 可以查看）');
  }
  return id;
}

async function link(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' } });
  if (positionals.length > 0 || values.project === undefined) {
    throw new UsageError('请用 --project ID 指定要链接的项目（sitehall projects 可查看编号）');
  }
  const id = projectNumber(values.project);
  const { url } = readCredentials();
  const api = connect();
  // Asked of the server: a link to a project the token can't reach would only fail later.
  const { project } = await api.call<{ project: ProjectDto }>('GET', `/api/projects/${id}`);
  const file = writeLink({ url: url!, project_id: project.id, name: project.name });
  console.log(`当前文件夹已链接到项目 ${project.id}「${project.name}」（${file}）`);
  return 0;
}

async function whoami(args: string[]): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  const { url } = readCredentials();
  const api = connect();
  const { user } = await api.call<{ user: { id: number; username: string; email: string | null } }>(
    'GET',
    '/api/auth/profile',
  );
  if (values.json) {
    printJson({ id: user.id, username: user.username, email: user.email, url });
  } else {
    console.log(`${user.username}（${url}）`);
  }
  return 0;
}

async function open(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    project: { type: 'string' },
    'no-browser': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`多余的参数：${positionals.join(' ')}`);
  const { url } = readCredentials();
  const api = connect();
  const saved = readLink();
  const id =
    values.project !== undefined
      ? projectNumber(values.project)
      : saved && url && sameServer(saved.url, url)
        ? saved.project_id
        : undefined;
  if (id === undefined) {
    throw new UsageError(
      '当前文件夹还没有链接到项目：用 --project ID 指定，或先运行 sitehall link --project ID',
    );
  }
  const { project } = await api.call<{ project: ProjectDto }>('GET', `/api/projects/${id}`);
  // Live: its address; not yet: a preview link (for the owner, it expires).
  const live = project.access_url !== null;
  const address = await api.siteLink(
    live
      ? project.access_url!
      : (await api.call<{ preview_url: string }>('POST', `/api/projects/${project.id}/preview-token`))
          .preview_url,
  );
  if (values.json) {
    printJson({ project_id: project.id, name: project.name, status: project.status, url: address, live });
    return 0;
  }
  console.log(live ? `线上地址：${address}` : `预览链接（尚未上线）：${address}`);
  // A project has one preview link at a time: the one a deploy printed (or shared) ends now.
  if (!live) console.error('这是新生成的预览链接，之前生成的预览链接已失效');
  if (!values['no-browser']) await openInBrowser(address);
  return 0;
}

/**
 * Hands the address to the system's opener, where there is one; the address is printed anyway.
 * Only http(s) addresses, as one argument and never through a shell (the server wrote them).
 * node:child_process is loaded here, not at start: every other command is a few ms quicker.
 */
async function openInBrowser(address: string): Promise<void> {
  if (!/^https?:$/.test(new URL(address).protocol)) return;
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', address]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', address]
        : ['xdg-open', address];
  const { spawn } = await import('node:child_process');
  try {
    const child = spawn(command!, args, { detached: true, stdio: 'ignore' });
    // No opener (a server, a CI job): nothing more to do.
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // As above.
  }
}

function unlink(args: string[]): number {
  parse(args, {});
  console.log(removeLink() ? `已取消链接（删除了 ${linkFile()}）` : '当前文件夹没有链接到项目');
  return 0;
}

/**
 * The files in batches of at most `maxFiles` and about BATCH_BYTES each, in as few batches as
 * that allows, at least BATCHES_IN_FLIGHT when there are enough files (so they go in parallel).
 */
function batchesOf<T extends { size: number }>(files: readonly T[], maxFiles: number): T[][] {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const bytes = Math.min(BATCH_BYTES, Math.ceil(total / BATCHES_IN_FLIGHT));
  const count = Math.min(maxFiles, Math.ceil(files.length / BATCHES_IN_FLIGHT));
  const batches: T[][] = [];
  let batch: T[] = [];
  let size = 0;
  for (const f of files) {
    if (batch.length > 0 && (batch.length >= count || size + f.size > bytes)) {
      batches.push(batch);
      batch = [];
      size = 0;
    }
    batch.push(f);
    size += f.size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
