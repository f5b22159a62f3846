import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptWorkers } from './kept-workers.js';

/** A worker that answers each message with its thread id, and fails on 'fail'. */
const ECHO = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m === 'fail') throw new Error('asked to fail');
  parentPort.postMessage(threadId);
});`;

const started: Worker[] = [];
const echo = () => {
  const worker = new Worker(ECHO, { eval: true });
  started.push(worker);
  return worker;
};
const ask = async (worker: Worker) => {
  worker.postMessage('id');
  const [id] = await once(worker, 'message');
  return id as number;
};
const exited = (worker: Worker) => new Promise<void>((resolve) => worker.once('exit', () => resolve()));

afterEach(async () => {
  await Promise.all(started.splice(0).map((w) => w.terminate()));
});

describe('KeptWorkers', () => {
  it('hands a parked worker to the next job instead of starting one', async () => {
    const pool = new KeptWorkers({ start: echo, idleMs: 60_000, maxJobs: 10 });
    const first = pool.take();
    const id = await ask(first);
    pool.park(first);
    expect(pool.parked).toBe(1);
    const second = pool.take();
    expect(second).toBe(first);
    expect(await ask(second)).toBe(id);
    expect(started).toHaveLength(1);
    expect(pool.parked).toBe(0);
    expect(pool.live).toBe(1);
  });

  it('ends a worker that ran its last job, one parked beyond the limit, and one idle too long', async () => {
    const pool = new KeptWorkers({ start: echo, idleMs: 50, maxJobs: 2, maxParked: 1 });
    const a = pool.take();
    const b = pool.take();
    await Promise.all([ask(a), ask(b)]);
    pool.park(a);
    const bEnds = exited(b);
    pool.park(b); // one parked already: b is ended
    await bEnds;
    expect(pool.parked).toBe(1);

    // a's second job is its last
    const again = pool.take();
    expect(again).toBe(a);
    await ask(again);
    const aEnds = exited(a);
    pool.park(again);
    await aEnds;
    expect(pool.parked).toBe(0);
    expect(pool.live).toBe(0);

    // a parked worker nobody takes ends after idleMs
    const c = pool.take();
    await ask(c);
    const cEnds = exited(c);
    pool.park(c);
    await cEnds;
    expect(pool.parked).toBe(0);
    expect(pool.live).toBe(0);
  });

  it('drops a parked worker that fails, without an unhandled error', async () => {
    const pool = new KeptWorkers({ start: echo, idleMs: 60_000, maxJobs: 10 });
    const w = pool.take();
    await ask(w);
    pool.park(w);
    const ends = exited(w);
    w.postMessage('fail');
    await ends;
    expect(pool.parked).toBe(0);
    expect(pool.live).toBe(0);
    const next = pool.take();
    expect(next).not.toBe(w);
    expect(typeof (await ask(next))).toBe('number');
  });

  it('counts a spare started ahead of need as no job done', async () => {
    const pool = new KeptWorkers({ start: echo, idleMs: 60_000, maxJobs: 1 });
    const spare = pool.start();
    pool.park(spare, false);
    expect(pool.parked).toBe(1);
    const taken = pool.take();
    expect(taken).toBe(spare);
    await ask(taken);
    const ends = exited(taken);
    pool.park(taken); // its one job done
    await ends;
    expect(pool.live).toBe(0);
  });
});
