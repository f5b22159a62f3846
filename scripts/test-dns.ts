/**
 * A small authoritative DNS server over UDP on a loopback port, for the custom-domain checks of
 * server/test/custom-domains.test.ts and e2e/domains.e2e.ts:
 * TXT and CNAME records set by the test, NXDOMAIN for any other name, NODATA for another type of a
 * known name. node:dns (c-ares) asks it as it would ask any resolver (DNS_RESOLVERS).
 */
import dgram from 'node:dgram';

const TYPE = { A: 1, CNAME: 5, TXT: 16 } as const;

export interface TestDns {
  /** 'host:port', as DNS_RESOLVERS takes it. */
  address: string;
  setTxt(name: string, values: string[]): void;
  setCname(name: string, target: string): void;
  clear(name: string): void;
  close(): Promise<void>;
}

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, 'ascii')])),
    Buffer.from([0]),
  ]);
}

/** The question's name, type and the offset past it; null for a malformed message. */
function question(msg: Buffer): { name: string; type: number; end: number } | null {
  let at = 12;
  const labels: string[] = [];
  while (at < msg.length) {
    const len = msg[at]!;
    if (len === 0) break;
    if (len > 63) return null;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('ascii'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function record(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the question's name
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(0, 6); // TTL 0: every check sees the current records
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

export async function startTestDns(): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const cname = new Map<string, string>();
  const socket = dgram.createSocket('udp4');
  let closed = false;
  socket.on('message', (msg, peer) => {
    const q = question(msg);
    if (!q || msg.length < 12) return;
    const answers: Buffer[] = [];
    if (q.type === TYPE.TXT) {
      for (const v of txt.get(q.name) ?? [])
        answers.push(record(TYPE.TXT, Buffer.concat([Buffer.from([v.length]), Buffer.from(v)])));
    } else if (q.type === TYPE.CNAME) {
      const target = cname.get(q.name);
      if (target) answers.push(record(TYPE.CNAME, encodeName(target)));
    }
    const known = txt.has(q.name) || cname.has(q.name);
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // id
    const rd = msg[2]! & 0x01;
    header[2] = 0x84 | rd; // response, authoritative
    header[3] = 0x80 | (known ? 0 : 3); // recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, msg.subarray(12, q.end), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, values) => txt.set(name.toLowerCase(), values),
    setCname: (name, target) => cname.set(name.toLowerCase(), target),
    clear: (name) => {
      txt.delete(name.toLowerCase());
      cname.delete(name.toLowerCase());
    },
    close: () =>
      closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            closed = true;
            socket.close(() => resolve());
          }),
  };
}
