/**
 * A real SMTP server in the test process (smtp-server, by nodemailer's authors) on a loopback
 * port: it keeps every message it accepts, decoded enough for tests to read (headers, subject,
 * plain text body).
 */
import type net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { freePort } from './ports.js';

export interface ReceivedMail {
  /** The envelope: who the server was asked to deliver to. */
  to: string[];
  from: string;
  /** Header lines as sent (unfolded), lower-cased names. */
  headers: [string, string][];
  subject: string;
  text: string;
}

export interface TestSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** delayMs: how long the server takes to accept each message (senders racing for a row). */
export async function startSmtp(port = 0, opts: { delayMs?: number } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), session));
        if (opts.delayMs) setTimeout(callback, opts.delayMs);
        else callback();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.server.address() as net.AddressInfo).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseMail(
  raw: string,
  session: { envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] } },
): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = head.split('\r\n').map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  const header = (name: string) => headers.find(([n]) => n === name)?.[1] ?? '';
  let body = raw.slice(split + 4);
  const encoding = header('content-transfer-encoding').toLowerCase();
  if (encoding === 'quoted-printable') body = decodeQuotedPrintable(body);
  else if (encoding === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return {
    to: session.envelope.rcptTo.map((r) => r.address),
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    headers,
    subject: decodeWords(header('subject')),
    text: body,
  };
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** RFC 2047 encoded words (=?UTF-8?B?…?= and =?UTF-8?Q?…?=), as nodemailer writes them. */
function decodeWords(text: string): string {
  return text
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

export { freePort };
