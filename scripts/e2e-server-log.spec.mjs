import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeServerLog, requestsDuring, SLOW_MS } from './e2e-server-log.mjs';

const T = Date.parse('2026-12-07T05:00:00.000Z');
const incoming = (at, id, method, url) =>
  JSON.stringify({ level: 20, time: at, reqId: id, req: { method, url }, msg: 'incoming request' });
const completed = (at, id, ms, status = 200) =>
  JSON.stringify({
    level: 20,
    time: at,
    reqId: id,
    res: { statusCode: status },
    responseTime: ms,
    msg: 'request completed',
  });

const log = [
  incoming(T - 60_000, 'req-1', 'GET', '/api/before'),
  completed(T - 59_000, 'req-1', 1000),
  incoming(T + 1_000, 'req-2', 'POST', '/api/admin/projects/7/feature'),
  incoming(T + 2_000, 'req-3', 'GET', '/api/admin/projects/7/download'),
  completed(T + 2_000 + SLOW_MS + 10, 'req-3', SLOW_MS + 10),
  incoming(T + 3_000, 'req-4', 'GET', '/api/me'),
  completed(T + 3_005, 'req-4', 5),
  JSON.stringify({
    level: 50,
    time: T + 4_000,
    reqId: 'req-5',
    msg: 'request errored',
    err: { message: 'boom' },
  }),
  '{"level":20,"time":', // cut off by the server's end
  incoming(T + 90_000, 'req-6', 'GET', '/api/after'),
].join('\n');

describe('requestsDuring', () => {
  it('names the requests not answered, those answered late, and the errors, of the window only', () => {
    const { unfinished, slow, problems } = requestsDuring(log, T, T + 30_000);
    expect(unfinished).toEqual([{ at: T + 1_000, method: 'POST', url: '/api/admin/projects/7/feature' }]);
    expect(slow).toEqual([
      { at: T + 2_000, method: 'GET', url: '/api/admin/projects/7/download', ms: SLOW_MS + 10, status: 200 },
    ]);
    expect(problems).toEqual([
      { at: T + 4_000, level: 50, msg: 'request errored', url: undefined, err: 'boom' },
    ]);
  });

  it('finds nothing in a window where every request was answered at once', () => {
    expect(requestsDuring(log, T - 61_000, T - 58_000)).toEqual({ unfinished: [], slow: [], problems: [] });
  });
});

describe('describeServerLog', () => {
  it('says what it found, or that it found nothing, or that there is no log', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-log-'));
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, log);
    const lines = describeServerLog(file, T, T + 30_000).join('\n');
    expect(lines).toContain(
      'not answered by the try’s end (1):\n    05:00:01.000 POST /api/admin/projects/7/feature',
    );
    expect(lines).toContain(`GET /api/admin/projects/7/download → 200 in ${SLOW_MS + 10} ms`);
    expect(lines).toContain('request errored boom');
    expect(describeServerLog(file, T - 61_000, T - 58_000)).toEqual([
      '  every request in the try was answered within 5 s, none with an error',
    ]);
    expect(describeServerLog(path.join(dir, 'none.log'), T, T + 1)[0]).toContain('no server log');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
