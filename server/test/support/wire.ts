/**
 * A raw HTTP/1.1 connection for tests that care about bytes and connections: pipelining, split
 * heads, keep-alive, who closes. Sends whatever it is given and reads answers back by their framing
 * (Content-Length or chunked; none for HEAD, 1xx, 204 and 304).
 */
import net from 'node:net';

export interface WireAnswer {
  status: number;
  /** The status line and header lines as sent, without the blank line. */
  head: string;
  headers: Record<string, string>;
  body: Buffer;
}

export class Wire {
  readonly socket: net.Socket;
  #buffer = Buffer.alloc(0);
  #closed = false;
  #waiters: Array<() => void> = [];

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Wire(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(text: string | Buffer): void {
    this.socket.write(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
  }

  /** The next answer, to a request of `method`; rejects if the connection closes first. */
  async answer(method = 'GET'): Promise<WireAnswer> {
    for (;;) {
      const answer = this.#take(method);
      if (answer) return answer;
      if (this.#closed) throw new Error(`connection closed with ${this.#buffer.length} bytes unread`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** Resolves once the other side has closed the connection. */
  async closedByServer(): Promise<void> {
    while (!this.#closed) await new Promise<void>((r) => this.#waiters.push(r));
  }

  close(): void {
    this.socket.destroy();
  }

  /** What arrived after the last answer taken (an upgraded connection's bytes). */
  rest(): Buffer {
    return Buffer.from(this.#buffer);
  }

  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }

  #take(method: string): WireAnswer | null {
    const buf = this.#buffer;
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const head = buf.subarray(0, end).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const status = Number(statusLine?.slice(9, 12));
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    let at = end + 4;
    let body = Buffer.alloc(0);
    if (method !== 'HEAD' && status !== 204 && status !== 304 && status >= 200) {
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (;;) {
          const lineEnd = buf.indexOf('\r\n', at);
          if (lineEnd < 0) return null;
          const size = Number.parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
          if (buf.length < lineEnd + 2 + size + 2) return null;
          parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
          if (size === 0) break;
        }
        body = Buffer.concat(parts);
      } else {
        const length = Number(headers['content-length'] ?? 0);
        if (buf.length < at + length) return null;
        body = buf.subarray(at, at + length);
        at += length;
      }
    }
    this.#buffer = buf.subarray(at);
    return { status, head, headers, body: Buffer.from(body) };
  }
}

/** A GET as a browser sends it on a kept-alive connection. */
export function getRequest(path: string, headers: Record<string, string> = {}, method = 'GET'): string {
  const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}
