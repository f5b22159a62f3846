/**
 * The per-file budget counts the scanning thread's CPU time (docs/content-check.md "The per-file
 * budget is CPU time"): a scan that waited for a core keeps its budget; the check's own end stops
 * every scan.
 */
import { describe, expect, it, vi } from 'vitest';
import { readThreadCpuMs, ScanBudget, TimeUp } from './context.js';

/** Runs until the wall clock has moved `ms` (a condition, not a sleep: the thread stays busy). */
function wallPasses(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() <= until) {
    // waiting for the clock
  }
}

describe('ScanBudget', () => {
  it('outlasts its wall-clock time while the thread got no CPU, and ends once the CPU is spent', () => {
    let cpu = 1_000;
    const budget = new ScanBudget(20, Number.POSITIVE_INFINITY, () => cpu);
    wallPasses(25);
    // 25 ms of wall time, none of it on a core (a loaded machine): the scan goes on.
    expect(() => budget.check()).not.toThrow();
    cpu += 15;
    wallPasses(25);
    expect(() => budget.check()).not.toThrow();
    cpu += 5;
    wallPasses(25);
    expect(() => budget.check()).toThrow(TimeUp);
  });

  it('a budget of 0 stops at the first look, and the check’s end stops any scan', () => {
    expect(() => new ScanBudget(0, Number.POSITIVE_INFINITY, () => 0).check()).toThrow(TimeUp);
    const ended = new ScanBudget(60_000, Date.now() - 1, () => 0);
    expect(() => ended.check()).toThrow(TimeUp);
  });

  it('without a CPU clock (not Linux) counts wall time', () => {
    // The wall clock moved by hand: a loaded machine could take more than the budget between the
    // budget's making and its first look (a CI run of session 58 did).
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const budget = new ScanBudget(5, Number.POSITIVE_INFINITY, () => null);
      expect(() => budget.check()).not.toThrow();
      vi.advanceTimersByTime(10);
      expect(() => budget.check()).toThrow(TimeUp);
    } finally {
      vi.useRealTimers();
    }
  });

  it('on Linux reads this thread’s CPU time', () => {
    const start = readThreadCpuMs();
    if (process.platform !== 'linux') return;
    expect(start).not.toBeNull();
    const budget = new ScanBudget(30);
    // Busy until this thread has used 50 ms of CPU (however long a loaded machine takes to give it).
    while (readThreadCpuMs()! - start! < 50) wallPasses(1);
    expect(() => budget.check()).toThrow(TimeUp);
  });
});
