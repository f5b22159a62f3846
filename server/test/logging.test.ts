/**
 * The terminal a person runs `npm start` in: readable lines when asked for (LOG_FORMAT, or a TTY),
 * JSON otherwise, and requests only at debug, so the default level shows what the server does.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import { loadConfig } from '../src/config.js';
import { createTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function logged(overrides: Partial<Config>): Promise<string[]> {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  t = await createTestApp(overrides, { logStream: stream });
  const res = await t.request({ url: '/api/config/public' });
  expect(res.statusCode).toBe(200);
  t.app.log.info('服务已就绪');
  await new Promise((resolve) => setImmediate(resolve));
  return lines;
}

describe('logging', () => {
  it('logs requests at debug only: the default level shows none of them', async () => {
    const info = await logged({ logLevel: 'info', logFormat: 'json' });
    expect(info.some((l) => l.includes('服务已就绪'))).toBe(true);
    expect(info.some((l) => l.includes('request completed') || l.includes('incoming request'))).toBe(false);
    await t?.close();
    const debug = await logged({ logLevel: 'debug', logFormat: 'json' });
    const parsed = debug.map((l) => JSON.parse(l));
    const incoming = parsed.find((l) => l.msg === 'incoming request');
    const completed = parsed.find((l) => l.msg === 'request completed');
    expect(incoming).toMatchObject({ level: 20, req: { url: '/api/config/public' } });
    expect(completed).toMatchObject({ level: 20, res: { statusCode: 200 }, reqId: incoming.reqId });
  });

  it('writes readable lines for a terminal, one JSON object per line otherwise', async () => {
    const pretty = await logged({ logLevel: 'info', logFormat: 'pretty' });
    const line = pretty.find((l) => l.includes('服务已就绪'));
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\] INFO: 服务已就绪/);
    expect(() => JSON.parse(line ?? '')).toThrow();
  });

  it('chooses by LOG_FORMAT, and by whether the output is a terminal when it says auto', () => {
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({}).logFormat).toBe(process.stdout.isTTY ? 'pretty' : 'json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });
});
