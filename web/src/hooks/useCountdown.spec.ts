import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatCountdown, useCountdown } from './useCountdown';

const START = new Date('2024-05-01T08:00:00.000Z').getTime();

describe('useCountdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows mm:ss and ticks every second', () => {
    const { result } = renderHook(() => useCountdown(new Date(START + 90_000).toISOString()));
    expect(result.current).toEqual({ remainingSeconds: 90, label: '01:30', expired: false });
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current.label).toBe('01:29');
    act(() => vi.advanceTimersByTime(29_000));
    expect(result.current.label).toBe('01:00');
    act(() => vi.advanceTimersByTime(59_000));
    expect(result.current.label).toBe('00:01');
  });

  it('stops at zero and calls onExpire once', () => {
    const onExpire = vi.fn();
    const { result } = renderHook(() => useCountdown(START + 3_000, onExpire));
    act(() => vi.advanceTimersByTime(2_000));
    expect(result.current.label).toBe('00:01');
    expect(onExpire).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current).toEqual({ remainingSeconds: 0, label: '00:00', expired: true });
    expect(onExpire).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(10_000));
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports a deadline already past as expired at once', () => {
    const onExpire = vi.fn();
    const { result } = renderHook(() => useCountdown(START - 1, onExpire));
    expect(result.current.expired).toBe(true);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('does nothing without a deadline, and starts over for a new one', () => {
    const { result, rerender } = renderHook(({ deadline }) => useCountdown(deadline), {
      initialProps: { deadline: null as number | null },
    });
    expect(result.current).toEqual({ remainingSeconds: null, label: '', expired: false });
    expect(vi.getTimerCount()).toBe(0);
    rerender({ deadline: START + 30 * 60_000 });
    expect(result.current.label).toBe('30:00');
    act(() => vi.advanceTimersByTime(5_000));
    expect(result.current.label).toBe('29:55');
  });

  it('clears its timer when unmounted', () => {
    const { unmount } = renderHook(() => useCountdown(START + 60_000));
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('formats minutes past an hour and never below zero', () => {
    expect(formatCountdown(0)).toBe('00:00');
    expect(formatCountdown(59)).toBe('00:59');
    expect(formatCountdown(4_500)).toBe('75:00');
    expect(formatCountdown(-5)).toBe('00:00');
  });
});
