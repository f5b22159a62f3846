import { renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useSingleFlight } from './useSingleFlight';

/** An action that runs until `finish` or `fail` is called, counting its starts. */
function heldAction() {
  let starts = 0;
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const action = () => {
    starts++;
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { action, starts: () => starts, finish: (v: string) => finish(v), fail: (e: Error) => fail(e) };
}

describe('useSingleFlight', () => {
  it('ignores a call while the same key’s action is on its way, and runs the next one after', async () => {
    const { result } = renderHook(() => useSingleFlight());
    const held = heldAction();
    const first = result.current('save', held.action);
    const second = result.current('save', held.action);
    expect(held.starts()).toBe(1);
    await expect(second).resolves.toBeUndefined();
    held.finish('done');
    await expect(first).resolves.toBe('done');
    const third = result.current('save', held.action);
    expect(held.starts()).toBe(2);
    held.finish('again');
    await expect(third).resolves.toBe('again');
  });

  it('runs different keys side by side (two rows of a list)', () => {
    const { result } = renderHook(() => useSingleFlight());
    const held = heldAction();
    void result.current('1', held.action);
    void result.current('2', held.action);
    expect(held.starts()).toBe(2);
  });

  it('lets a key go again after its action fails', async () => {
    const { result } = renderHook(() => useSingleFlight());
    const held = heldAction();
    const first = result.current('save', held.action);
    held.fail(new Error('refused'));
    await expect(first).rejects.toThrow('refused');
    void result.current('save', held.action);
    expect(held.starts()).toBe(2);
  });

  it('keeps its keys across renders', async () => {
    const { result, rerender } = renderHook(() => useSingleFlight());
    const held = heldAction();
    const first = result.current('save', held.action);
    rerender();
    void result.current('save', held.action);
    expect(held.starts()).toBe(1);
    held.finish('done');
    await first;
  });
});
