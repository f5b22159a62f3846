/**
 * The outage watch alone, on a fake clock and a dependency whose question the test answers: when
 * it asks, down and up, the backoff between questions, what is reported. The pool and the S3
 * guard built on it meet real outages in server/test/faults/ and storage/s3-blob-store.spec.ts.
 */

import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  askWithin,
  OutageWatch,
  type OutageWatchOptions,
  PROBE_AFTER_MS,
  PROBE_GAP_MS,
  RETRY_FIRST_MS,
  RETRY_MAX_MS,
  Unanswered,
} from './outage-watch.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * A dependency that answers its question while `answering`, fails it otherwise, or leaves it out
 * until `settle` while `held`; with what the watch asked and reported.
 */
function dependency(choices: Partial<Pick<OutageWatchOptions, 'waitingCalls' | 'afterFailure'>> = {}) {
  const d = {
    answering: true,
    /** When not answering: the question times out (Unanswered) rather than being refused. */
    silent: false,
    held: false,
    /** When each question was asked (the fake clock). */
    asked: [] as number[],
    reported: [] as string[],
    dropped: [] as unknown[],
    pending: [] as Array<() => void>,
    watch: undefined as unknown as OutageWatch,
    /** Settles the questions held so far, as `answering` says. */
    settle: async () => {
      for (const settle of d.pending.splice(0)) settle();
      await vi.advanceTimersByTimeAsync(0);
    },
  };
  const answer = (resolve: () => void, reject: (err: Error) => void) =>
    d.answering ? resolve() : reject(d.silent ? new Unanswered(1_000) : new Error('no answer'));
  d.watch = new OutageWatch({
    ask: () => {
      d.asked.push(performance.now());
      return new Promise<void>((resolve, reject) => {
        if (d.held) d.pending.push(() => answer(resolve, reject));
        else answer(resolve, reject);
      });
    },
    onDown: (err) => d.dropped.push(err),
    waitingCalls: choices.waitingCalls ?? 'trusted',
    afterFailure: choices.afterFailure ?? 'spaced',
  });
  d.watch.reportTo((event) => d.reported.push(event.kind));
  return d;
}

/** Takes the dependency down: one failed question, then it is known down. */
async function takeDown(d: ReturnType<typeof dependency>): Promise<void> {
  d.answering = false;
  d.watch.suspect();
  await vi.advanceTimersByTimeAsync(0);
  expect(d.watch.down).toBe(true);
}

describe('outage watch', () => {
  it('asks once a call has waited long enough, not before, and not for a call already answered', async () => {
    const d = dependency();
    const quick = d.watch.track();
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS / 2);
    quick.finish();
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS * 5);
    expect(d.asked).toHaveLength(0);

    const slow = d.watch.track();
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS - 1);
    expect(d.asked).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS);
    expect(d.asked).toHaveLength(1);
    // It answered: nothing is down, nothing cut, nothing reported.
    expect(d.watch.available).toBe(true);
    expect(slow.signal.aborted).toBe(false);
    expect(d.reported).toEqual([]);
    slow.finish();
  });

  it('trusted: a long call the dependency answered for is not asked about again; a newer one is', async () => {
    const d = dependency({ waitingCalls: 'trusted' });
    const upload = d.watch.track();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked).toHaveLength(1);

    const later = d.watch.track();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked).toHaveLength(2);
    upload.finish();
    later.finish();
  });

  it('rechecked: a long call is asked about for as long as it waits, a gap apart', async () => {
    const d = dependency({ waitingCalls: 'rechecked' });
    const statement = d.watch.track();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked.length).toBeGreaterThan(10);
    for (let i = 1; i < d.asked.length; i++)
      expect(d.asked[i]! - d.asked[i - 1]!).toBeGreaterThanOrEqual(PROBE_GAP_MS);
    statement.finish();
    // Nothing waits any more: no more questions.
    const asked = d.asked.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked).toHaveLength(asked);
  });

  it('a question unanswered in time is no outage while other calls were answered meanwhile; it is when none was', async () => {
    const d = dependency({ waitingCalls: 'rechecked', afterFailure: 'at once' });
    d.answering = false;
    d.silent = true;
    d.held = true;
    const slow = d.watch.track();
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS);
    expect(d.asked).toHaveLength(1);
    // Another call gets its answer while the question waits: the dependency is slow, not gone.
    d.watch.track().finish(true);
    await d.settle();
    expect(d.watch.down).toBe(false);
    expect(slow.signal.aborted).toBe(false);
    expect(d.reported).toEqual([]);
    // Still waiting: asked again, and this time nothing answers meanwhile (a failed call is no answer).
    await vi.advanceTimersByTimeAsync(PROBE_GAP_MS + 100);
    expect(d.asked).toHaveLength(2);
    d.watch.track().finish(false);
    await d.settle();
    expect(d.watch.down).toBe(true);
    expect(slow.signal.aborted).toBe(true);
    expect(d.reported).toEqual(['down']);
    slow.finish();
  });

  it('a refused question is an outage even while other calls were answered', async () => {
    const d = dependency();
    d.answering = false;
    d.held = true;
    d.watch.suspect();
    d.watch.track().finish(true);
    await d.settle();
    expect(d.watch.down).toBe(true);
  });

  it('askWithin: an answer that arrived while the event loop was busy past the bound is an answer', async () => {
    vi.useRealTimers();
    // One stat is one I/O callback, read in the poll phase after the bound's timer has fired.
    const asked = askWithin(() => fs.promises.stat(import.meta.filename), 20);
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // Busy, as a starved or blocked process is.
    }
    await expect(asked).resolves.toBeDefined();
    // And one that does not come is an Unanswered, its signal aborted.
    let signal: AbortSignal | undefined;
    const never = askWithin((s) => {
      signal = s;
      return new Promise(() => {});
    }, 20);
    await expect(never).rejects.toBeInstanceOf(Unanswered);
    expect(signal?.aborted).toBe(true);
  });

  it('down: calls in flight are cut, the dependency drops what it holds, new calls are refused, reported once', async () => {
    const d = dependency();
    const waiting = d.watch.track();
    const signal = waiting.signal;
    const other = d.watch.track();
    await takeDown(d);

    expect(d.watch.available).toBe(false);
    expect(signal.aborted).toBe(true);
    // A call that never asked for its signal is cut too, once it does.
    expect(other.signal.aborted).toBe(true);
    expect(d.dropped).toHaveLength(1);
    expect(String(d.dropped[0])).toContain('no answer');
    expect(d.reported).toEqual(['down']);
    // One that begins now is cut from the start.
    expect(d.watch.track().signal.aborted).toBe(true);

    // More failures while down change nothing: no second report, nothing dropped again, and no
    // question but the retries.
    d.watch.suspect();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.reported).toEqual(['down']);
    expect(d.dropped).toHaveLength(1);
  });

  it('a report or a drop that throws changes nothing: calls are still cut, and the watch recovers', async () => {
    const unhandled: unknown[] = [];
    const collect = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', collect);
    try {
      const d = dependency();
      d.watch.reportTo((event) => {
        d.reported.push(event.kind);
        throw new Error('log closed');
      });
      const waiting = d.watch.track();
      await takeDown(d);
      expect(waiting.signal.aborted).toBe(true);
      expect(d.watch.available).toBe(false);
      expect(d.reported).toEqual(['down']);
      d.answering = true;
      await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
      expect(d.watch.available).toBe(true);
      expect(d.reported).toEqual(['down', 'up']);
      // An unhandled rejection is reported on a later turn of the real event loop.
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', collect);
    }
  });

  it('while down, asks again after a delay that doubles from the first up to the last', async () => {
    const d = dependency();
    await takeDown(d);
    await vi.advanceTimersByTimeAsync(
      RETRY_FIRST_MS + 2 * RETRY_FIRST_MS + 4 * RETRY_FIRST_MS + 4 * RETRY_MAX_MS,
    );
    const gaps = d.asked.slice(1).map((at, i) => at - d.asked[i]!);
    const expected: number[] = [];
    for (let wait = RETRY_FIRST_MS; expected.length < gaps.length; wait = Math.min(wait * 2, RETRY_MAX_MS))
      expected.push(wait);
    expect(gaps.length).toBeGreaterThanOrEqual(6);
    expect(gaps).toEqual(expected);
    expect(gaps.at(-1)).toBe(RETRY_MAX_MS);
  });

  it('up: the first answer ends the outage, reported once; calls go out again; the next outage starts its backoff anew', async () => {
    const d = dependency();
    await takeDown(d);
    await vi.advanceTimersByTimeAsync(RETRY_FIRST_MS * 10);
    d.answering = true;
    await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
    expect(d.watch.down).toBe(false);
    expect(d.watch.available).toBe(true);
    expect(d.reported).toEqual(['down', 'up']);
    const next = d.watch.track();
    expect(next.signal.aborted).toBe(false);
    next.finish();

    // Up and nothing waiting: no more questions.
    const asked = d.asked.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked).toHaveLength(asked);

    await takeDown(d);
    const downAt = d.asked.at(-1)!;
    await vi.advanceTimersByTimeAsync(RETRY_FIRST_MS);
    expect(d.asked.at(-1)! - downAt).toBe(RETRY_FIRST_MS);
    expect(d.reported).toEqual(['down', 'up', 'down']);
  });

  it('one question at a time; after a failure, spaced asks only a gap after the last answer, at once asks now', async () => {
    for (const afterFailure of ['spaced', 'at once'] as const) {
      const d = dependency({ afterFailure });
      d.held = true;
      d.watch.suspect();
      d.watch.suspect();
      expect(d.asked, afterFailure).toHaveLength(1);
      await d.settle();

      d.watch.suspect();
      expect(d.asked, afterFailure).toHaveLength(afterFailure === 'spaced' ? 1 : 2);
      await d.settle();
      await vi.advanceTimersByTimeAsync(PROBE_GAP_MS);
      d.watch.suspect();
      expect(d.asked, afterFailure).toHaveLength(afterFailure === 'spaced' ? 2 : 3);
      await d.settle();
      expect(d.reported, afterFailure).toEqual([]);
    }
  });

  it('closed: nothing is asked or reported any more, and calls are refused', async () => {
    const d = dependency();
    d.held = true;
    d.answering = false;
    const waiting = d.watch.track();
    d.watch.suspect();
    d.watch.close();
    await d.settle();
    expect(d.reported).toEqual([]);
    expect(waiting.signal.aborted).toBe(false);
    expect(d.watch.available).toBe(false);

    d.watch.suspect();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(d.asked).toHaveLength(1);
  });
});
