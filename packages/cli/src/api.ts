/**
 * The SiteHall API as the CLI uses it: JSON envelopes, the server's Chinese messages on failure.
 *
 * Requests go through node:http(s), not fetch: fetch's first call loads and compiles undici (a
 * tenth of a second of a CLI run), and it sends a file-backed multipart body in 64 KB web-stream
 * chunks, each a promise and a thread-pool read. Here a file goes to the socket in 1 MB reads
 * (docs/benchmarks.md "Digest deploys", "A few large files").
 */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type https from 'node:https';
import { createRequire } from 'node:module';
import { completeSiteUrl } from '../../contracts/src/site-urls.js';
import { fileSystemProblem } from './fs-errors.js';

/**
 * node:https, loaded only for an https:// server: it brings TLS with it, a few ms of every run
 * against a plain-HTTP one (a CI job inside its network, the bench).
 */
let httpsModule: typeof https | undefined;
function httpsOf(): typeof https {
  httpsModule ??= createRequire(import.meta.url)('node:https') as typeof https;
  return httpsModule;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The answer's field errors: the field names a refusal the CLI handles itself (`base_version`). */
    readonly errors?: Record<string, string>,
    /** Seconds the answer's Retry-After asks to wait (a 429 or 503), when it gave them. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Envelope<T> {
  success: boolean;
  message?: string;
  errors?: Record<string, string>;
  data?: T;
}

/** How long one request may take before it is given up (a stalled server must not hang CI). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
/**
 * How long an answer may be awaited once the request is sent, for every call but a deploy's finish
 * (which ingests and checks the whole site, and keeps REQUEST_TIMEOUT_MS): a server that takes the
 * connection and never answers held the command for ten minutes. SITEHALL_ANSWER_WAIT_MS is the
 * tests' way to set it.
 */
function answerWaitMs(): number {
  const set = Number(process.env.SITEHALL_ANSWER_WAIT_MS);
  return Number.isInteger(set) && set > 0 ? set : 60_000;
}
/**
 * How long opening a connection may take: an address that drops packets (a firewall, a server
 * whose queue is full) otherwise leaves the command waiting for the system's own retries.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/** The connection was not opened in CONNECT_TIMEOUT_MS. */
class ConnectTimeout extends Error {
  constructor() {
    super(`${CONNECT_TIMEOUT_MS / 1000} 秒内未能建立连接（地址或端口不通，或被防火墙拦下）`);
    this.name = 'ConnectTimeout';
  }
}
/** A request given up by `abortRequests`. */
export class RequestAborted extends Error {
  constructor() {
    super('已取消');
    this.name = 'RequestAborted';
  }
}

/** No answer came in the time a call waits for one after it was sent. */
class AnswerTimeout extends Error {
  constructor(ms: number) {
    super(ms >= 60_000 ? `${ms / 60_000} 分钟内没有收到回答` : `${Math.ceil(ms / 1000)} 秒内没有收到回答`);
    this.name = 'AnswerTimeout';
  }
}

/** A request's failure, and whether a connection to the server had been open for it. */
class RequestFailed extends Error {
  constructor(
    readonly reason: unknown,
    readonly connected: boolean,
  ) {
    super('request failed');
  }
}

/** Reads of a file being sent: a 6 MB image is six writes to the socket, not a hundred. */
const READ_BYTES = 1024 * 1024;

/** A request body: its exact length, and how to write it. */
interface Body {
  length: number;
  /** Writes the body to `out` (respecting back-pressure); `stopped()` is true once the server answered. */
  write(out: http.ClientRequest, stopped: () => boolean): Promise<void>;
}

/** One file of a body, read from disk as it is sent; `size` is what was listed and hashed. */
interface SentFile {
  file: string;
  size: number;
  /** The file's bytes as hashed, when kept (files.ts, hashFiles): sent as they are. */
  bytes?: Buffer;
}

export class Api {
  readonly #base: URL;
  readonly #agent: http.Agent;
  /** Requests sent and not yet answered in full (`abortRequests`). */
  readonly #inFlight = new Set<http.ClientRequest>();
  constructor(
    url: string,
    private readonly token: string,
  ) {
    this.#base = new URL(url.endsWith('/') ? url : `${url}/`);
    // Connections kept between requests (the batches reuse them); idle ones never hold the exit.
    const Agent = this.#base.protocol === 'https:' ? httpsOf().Agent : http.Agent;
    this.#agent = new Agent({ keepAlive: true });
  }

  /**
   * An absolute link from a path the server answered (the web app's pages), without the user name
   * and password a SITEHALL_URL may carry: a link is printed, and CI logs keep what is printed.
   */
  link(pathOrUrl: string): string {
    return withoutCredentials(new URL(pathOrUrl, this.#base));
  }

  #sitesPort: Promise<number | null> | undefined;

  /**
   * Gives up every request under way (a watch stopped while it sends a deploy's files: the deploy
   * is cancelled, so what the transfers would bring is no longer wanted); each fails at once.
   */
  abortRequests(): void {
    for (const req of this.#inFlight) req.destroy(new RequestAborted());
  }

  /**
   * A site or preview address the server answered, as the web app shows it (contracts'
   * completeSiteUrl with the public config's sites port): `http://p6.localhost:3001/`, not
   * `/sites/6/` on the app's port, which redirects there. A config that can't be read leaves the
   * address on the server's own origin, which still leads there.
   */
  async siteLink(url: string): Promise<string> {
    this.#sitesPort ??= this.call<{ sites_port: number | null }>('GET', '/api/config/public').then(
      (config) => config.sites_port ?? null,
      () => null,
    );
    return withoutCredentials(new URL(completeSiteUrl(url, this.#base, await this.#sitesPort)));
  }

  /**
   * `onSent`: called once the JSON body is handed to the operating system (the server has it or
   * soon will). `slow`: the server's work may take minutes (a deploy's finish), so its answer is
   * awaited for the whole request time rather than answerWaitMs.
   */
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    { onSent, slow = false }: { onSent?: () => void; slow?: boolean } = {},
  ): Promise<T> {
    const wait = slow ? REQUEST_TIMEOUT_MS : answerWaitMs();
    // A DELETE answers no data (a cancelled deploy); every other call's caller reads fields of it.
    if (body === undefined) return this.#send<T>(method, path, headers, undefined, method !== 'DELETE', wait);
    const bytes = Buffer.from(JSON.stringify(body));
    return this.#send<T>(
      method,
      path,
      { ...headers, 'content-type': 'application/json' },
      {
        length: bytes.length,
        write: async (out) => {
          out.write(bytes, () => onSent?.());
        },
      },
      true,
      wait,
    );
  }

  /** PUT a file as the raw body, streamed from disk. */
  async putFile<T>(path: string, file: string, size: number): Promise<T> {
    return this.#send<T>(
      'PUT',
      path,
      { 'content-type': 'application/octet-stream' },
      { length: size, write: (out, stopped) => sendFile(out, { file, size }, stopped) },
      false,
      answerWaitMs(),
    );
  }

  /**
   * POST several files as one multipart body, each part named by its content's SHA-256 and read
   * from disk as it is sent (nothing held in memory). The length is exact, so the server holds the
   * batch's bytes against the quota once.
   */
  async postFiles<T>(
    path: string,
    files: readonly { sha256: string; file: string; size: number }[],
  ): Promise<T> {
    const boundary = `----sitehall${randomBytes(12).toString('hex')}`;
    const heads = files.map((f) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.sha256}"; filename="file"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
    );
    const crlf = Buffer.from('\r\n');
    const tail = Buffer.from(`--${boundary}--\r\n`);
    const length = files.reduce((sum, f, i) => sum + heads[i]!.length + f.size + crlf.length, tail.length);
    return this.#send<T>(
      'POST',
      path,
      { 'content-type': `multipart/form-data; boundary=${boundary}` },
      {
        length,
        write: async (out, stopped) => {
          for (const [i, f] of files.entries()) {
            if (stopped()) return;
            await written(out, heads[i]!);
            await sendFile(out, f, stopped);
            await written(out, crlf);
          }
          await written(out, tail);
        },
      },
      false,
      answerWaitMs(),
    );
  }

  /**
   * `needsData`: the answer must carry `data` as an object (its caller reads fields of it); a file
   * transfer's and a DELETE's answer carry none (null). `answerWait`: how long the answer may be
   * awaited once the request is sent.
   */
  async #send<T>(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Body | undefined,
    needsData: boolean,
    answerWait: number,
  ): Promise<T> {
    const url = new URL(path.replace(/^\//, ''), this.#base);
    let answer: { status: number; text: string; retryAfter?: number };
    try {
      answer = await this.#request(url, method, headers, body, answerWait);
    } catch (failed) {
      const { reason: err, connected } = failed as RequestFailed;
      if (err instanceof ApiError) throw err;
      // A file of the site that could not be read is the folder's doing, not the connection's: said
      // as such by the command (fs-errors.ts).
      if (fileSystemProblem(err)) throw err;
      // Connected, then no (whole) answer: the server is there and did not answer, which is not a
      // failure to connect (a stalled server, a proxy that dropped the request, a reset).
      throw new ApiError(
        connected
          ? `服务器 ${this.#base.origin} 没有完成回答（${method} ${url.pathname}）：${reasonOf(err)}`
          : `无法连接服务器 ${this.#base.origin}：${reasonOf(err)}`,
        0,
      );
    }
    let envelope: Envelope<T> | null = null;
    try {
      envelope = JSON.parse(answer.text) as Envelope<T>;
    } catch {
      // Not the API (a proxy's error page, a wrong address): said below.
    }
    const ok = answer.status >= 200 && answer.status < 300;
    // An answer that is not the API's envelope (another server at this address, a proxy's page, a
    // path in SITEHALL_URL): said as such, never read as data (a field of it was read as undefined,
    // and Node's English TypeError was what the user saw).
    const api =
      envelope !== null &&
      typeof envelope === 'object' &&
      (envelope.message === undefined || typeof envelope.message === 'string') &&
      (!envelope.success ||
        (typeof envelope.data === 'object' && envelope.data !== null) ||
        (!needsData && (envelope.data === undefined || envelope.data === null)));
    if (!api) throw new ApiError(notTheApi(this.#base, answer.status, url.pathname), answer.status);
    if (!ok || !envelope!.success) {
      throw new ApiError(
        envelope!.message ?? notTheApi(this.#base, answer.status, url.pathname),
        answer.status,
        envelope!.errors,
        answer.retryAfter,
      );
    }
    return envelope!.data as T;
  }

  /**
   * One request. The server may answer before the body is sent (a refused batch: 413 with
   * `Connection: close`): its answer is what counts, and the rest of the body is not sent.
   */
  #request(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Body | undefined,
    answerWait: number,
  ): Promise<{ status: number; text: string; retryAfter?: number }> {
    return new Promise((resolve, rejectWith) => {
      let answered = false;
      let connected = false;
      let answerTimer: NodeJS.Timeout | undefined;
      const reject = (err: unknown) => {
        clearTimeout(answerTimer);
        rejectWith(new RequestFailed(err, connected));
      };
      const send = url.protocol === 'https:' ? httpsOf().request : http.request;
      const req = send(
        url,
        {
          method,
          agent: this.#agent,
          headers: {
            ...headers,
            authorization: `Bearer ${this.token}`,
            ...(body ? { 'content-length': String(body.length) } : {}),
          },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        },
        (res) => {
          answered = true;
          clearTimeout(answerTimer);
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          // Seconds only (what this server sends); a date or anything else is left out.
          const wait = /^\d{1,6}$/.test(String(res.headers['retry-after'] ?? ''))
            ? Number(res.headers['retry-after'])
            : undefined;
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              ...(wait !== undefined ? { retryAfter: wait } : {}),
            }),
          );
          res.on('error', reject);
        },
      );
      // After an answer, a failed write (the server closed a refused body) is not the outcome.
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      req.on('socket', (socket) => {
        // A kept connection is open already.
        if (!socket.connecting) {
          connected = true;
          return;
        }
        const timer = setTimeout(() => req.destroy(new ConnectTimeout()), CONNECT_TIMEOUT_MS);
        socket.once('connect', () => {
          connected = true;
          clearTimeout(timer);
        });
        socket.once('close', () => clearTimeout(timer));
      });
      // The whole request is with the operating system: from here only the answer is awaited.
      req.on('finish', () => {
        if (answered) return;
        answerTimer = setTimeout(() => req.destroy(new AnswerTimeout(answerWait)), answerWait);
      });
      this.#inFlight.add(req);
      req.on('close', () => {
        clearTimeout(answerTimer);
        this.#inFlight.delete(req);
      });
      if (!body) {
        req.end();
        return;
      }
      body
        .write(req, () => answered || req.destroyed)
        .then(
          () => {
            if (!answered && !req.destroyed) req.end();
          },
          (err: unknown) => {
            if (answered) return;
            req.destroy();
            reject(err);
          },
        );
    });
  }
}

/** An address as printed: without the user name and password the server's address may carry. */
function withoutCredentials(address: URL): string {
  address.username = '';
  address.password = '';
  return address.toString();
}

/** An answer that is not SiteHall's API, said with what came back and where. */
function notTheApi(base: URL, status: number, path: string): string {
  // A proxy's error page in front of the server: the server (or the proxy) is the problem.
  if (status >= 500) return `服务器返回 HTTP ${status}（${path}）：服务器或它前面的代理出了错，请稍后重试`;
  return `${base.origin} 的回答不是 SiteHall 的接口（HTTP ${status}，${path}）：请检查服务器地址是否正确`;
}

/** Writes `chunk`, waiting for the socket to drain when its buffer is full. */
function written(out: http.ClientRequest, chunk: Buffer): Promise<void> {
  if (out.destroyed) return Promise.resolve();
  if (out.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/** Sends a file's bytes; one whose size changed since it was hashed stops the deploy. */
async function sendFile(out: http.ClientRequest, f: SentFile, stopped: () => boolean): Promise<void> {
  if (f.bytes) {
    // The bytes hashed are sent; a file whose size changed since then still stops the deploy, as
    // it does when read here (the folder is being written: a build still running).
    if (fs.statSync(f.file, { throwIfNoEntry: false })?.size !== f.size) throw changedWhileSent(f.file);
    await written(out, f.bytes);
    return;
  }
  // Read no further than one byte past the hashed size (a file that grew is caught below): a
  // ReadStream allocates its highWaterMark for every read otherwise, 1 MB for each small file,
  // and a first deploy of 5,000 files spent more CPU in garbage collection than in anything else.
  const stream = fs.createReadStream(f.file, { highWaterMark: READ_BYTES, end: f.size });
  let sent = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (stopped()) return;
      sent += chunk.length;
      if (sent > f.size) break;
      await written(out, chunk);
    }
  } finally {
    stream.destroy();
  }
  if (sent !== f.size && !stopped()) throw changedWhileSent(f.file);
}

/** A file of the site whose bytes changed between its hashing and its sending. */
export function changedWhileSent(file: string, status = 0): ApiError {
  return new ApiError(`文件在上传时被改动：${file}（请在构建完成后再部署）`, status);
}

/** What went wrong on the way to the server, in Node's words (ECONNREFUSED, a timeout...). */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // The request's own time ran out (AbortSignal.timeout): Node says only "The operation was aborted".
  if ((err.cause as Error | undefined)?.name === 'TimeoutError') {
    return `${REQUEST_TIMEOUT_MS / 60_000} 分钟内没有收到回答`;
  }
  // Several addresses tried (localhost: ::1 and 127.0.0.1): an AggregateError without a message.
  const code = (err as NodeJS.ErrnoException).code;
  if (!err.message && err instanceof AggregateError && err.errors.length > 0) return reasonOf(err.errors[0]);
  // The common ones in Chinese, with Node's code kept for a search; any other in Node's words.
  const said = code
    ? (CONNECTION_PROBLEMS[code] ?? (code.startsWith('HPE_') ? NOT_HTTP : undefined))
    : undefined;
  if (said) return `${said}（${code}）`;
  if (code?.startsWith('ERR_SSL') || /SSL routines|wrong version number/i.test(err.message))
    return `TLS 握手失败：这个地址可能不支持 https（${code ?? 'TLS'}）`;
  if (err.message) return code && !err.message.includes(code) ? `${err.message}（${code}）` : err.message;
  return code ?? err.name;
}

const NOT_HTTP = '对方的回答不是有效的 HTTP：这个地址可能不是网页服务器';

/** What the usual failures of a connection mean, by Node's code. */
const CONNECTION_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: '连接被拒绝：这个地址和端口上没有服务在运行',
  ENOTFOUND: '找不到这个主机名',
  EAI_AGAIN: '暂时无法解析这个主机名（DNS 没有回答）',
  ECONNRESET: '连接被对方中断',
  EPIPE: '连接被对方中断',
  ETIMEDOUT: '连接超时',
  EHOSTUNREACH: '无法到达这个主机',
  ENETUNREACH: '网络不可达',
  ERR_INVALID_CHAR: '令牌或请求头中有不能发送的字符',
};
