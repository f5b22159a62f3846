import { describe, expect, it } from 'vitest';
import { FairSlots, heavyJobSlots } from './fair-slots.js';

/** Acquires for each owner in order and records the order in which the jobs start. */
function harness(slots: FairSlots) {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (owner: string, job: string, signal?: AbortSignal) =>
    slots.acquire(owner, signal).then((release) => {
      started.push(job);
      releases.set(job, release);
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { started, ask, settle, release: (job: string) => releases.get(job)!() };
}

describe('fair slots for heavy jobs', () => {
  it('start waiting jobs round robin between accounts, not in arrival order', async () => {
    const h = harness(new FairSlots({ capacity: 1, perAccount: 1, spare: 0 }));
    void h.ask('a', 'a1');
    for (const job of ['a2', 'a3', 'a4']) void h.ask('a', job);
    void h.ask('b', 'b1');
    void h.ask('c', 'c1');
    await h.settle();
    expect(h.started).toEqual(['a1']);
    for (const job of ['a1', 'a2', 'b1', 'c1', 'a3']) {
      h.release(job);
      await h.settle();
    }
    expect(h.started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'a4']);
  });

  it('let one account run at most its share, and a newcomer take the spare slot', async () => {
    const slots = new FairSlots({ capacity: 2, perAccount: 1, spare: 1 });
    const h = harness(slots);
    void h.ask('attacker1', 'x1');
    void h.ask('attacker1', 'x2');
    void h.ask('attacker2', 'y1');
    void h.ask('attacker2', 'y2');
    void h.ask('victim', 'v1');
    await h.settle();
    // Two attackers hold the two slots; the victim, with nothing running, takes the spare at once.
    expect(h.started).toEqual(['x1', 'y1', 'v1']);
    expect(slots.stats()).toEqual({ running: 3, waiting: 2 });
    // A fourth account waits: the spare is taken.
    void h.ask('other', 'o1');
    await h.settle();
    expect(h.started).toHaveLength(3);
    h.release('v1');
    await h.settle();
    // Back under capacity + spare: the account with nothing running starts.
    expect(h.started).toEqual(['x1', 'y1', 'v1', 'o1']);
    h.release('x1');
    await h.settle();
    expect(h.started.at(-1)).toBe('x2');
  });

  it('forget a job whose upload was abandoned while it waited', async () => {
    const slots = new FairSlots({ capacity: 1, perAccount: 1, spare: 0 });
    const h = harness(slots);
    void h.ask('a', 'a1');
    const abort = new AbortController();
    const gone = h.ask('b', 'b1', abort.signal);
    void h.ask('c', 'c1');
    abort.abort(new Error('client gone'));
    await expect(gone).rejects.toThrow('client gone');
    h.release('a1');
    await h.settle();
    expect(h.started).toEqual(['a1', 'c1']);
    expect(slots.stats()).toEqual({ running: 1, waiting: 0 });
  });

  it('give one account half the CPUs (at least one), and as many spare slots as CPUs', () => {
    expect(heavyJobSlots(2)).toEqual({ capacity: 2, perAccount: 1, spare: 2 });
    expect(heavyJobSlots(8)).toEqual({ capacity: 8, perAccount: 4, spare: 8 });
    expect(heavyJobSlots(1)).toEqual({ capacity: 1, perAccount: 1, spare: 1 });
  });
});
