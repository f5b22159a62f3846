/** The SiteHall API as the CLI uses it: JSON envelopes, the server's Chinese messages on failure. */
import fs from 'node:fs';
import { Readable } from 'node:stream';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Envelope<T> {
  success: boolean;
  message?: string;
  data?: T;
}

/** How long one request may take before it is given up (a stalled server must not hang CI). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;

export class Api {
  readonly #base: URL;
  constructor(
    url: string,
    private readonly token: string,
  ) {
    this.#base = new URL(url.endsWith('/') ? url : `${url}/`);
  }

  /** An absolute link from a path the server answered (preview links, site addresses). */
  link(pathOrUrl: string): string {
    return new URL(pathOrUrl, this.#base).toString();
  }

  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    return this.#send<T>(method, path, {
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    });
  }

  /** PUT a file as the raw body, streamed from disk. */
  async putFile<T>(path: string, file: string, size: number): Promise<T> {
    const stream = Readable.toWeb(fs.createReadStream(file)) as ReadableStream<Uint8Array>;
    return this.#send<T>('PUT', path, {
      body: stream,
      duplex: 'half',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
    });
  }

  async #send<T>(
    method: string,
    path: string,
    init: { body?: string | ReadableStream<Uint8Array>; headers?: Record<string, string>; duplex?: 'half' },
  ): Promise<T> {
    const url = new URL(path.replace(/^\//, ''), this.#base);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${this.token}` },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      } as RequestInit);
    } catch (err) {
      const reason =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new ApiError(`无法连接服务器 ${this.#base.origin}：${reason}`, 0);
    }
    const text = await res.text();
    let envelope: Envelope<T> | null = null;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      // Not the API (a proxy's error page, a wrong address): said below.
    }
    if (!res.ok || !envelope?.success) {
      throw new ApiError(envelope?.message ?? `服务器返回 HTTP ${res.status}（${url.pathname}）`, res.status);
    }
    return envelope.data as T;
  }
}
