/** Time left until a deadline, ticking every second (docs/product.md §4 "Preview", §9: 1 s ticks). */
import { useEffect, useRef, useState } from 'react';

const TICK_MS = 1_000;

/** 90 → '01:30'; minutes keep counting past 59 ('75:00'). */
export function formatCountdown(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const mm = String(Math.floor(seconds / 60)).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return `${mm}:${ss}`;
}

function toTime(deadline: string | number | null | undefined): number | null {
  if (deadline === null || deadline === undefined) return null;
  const time = typeof deadline === 'number' ? deadline : Date.parse(deadline);
  return Number.isNaN(time) ? null : time;
}

export interface Countdown {
  /** Whole seconds left (rounded up), 0 once the deadline has passed, null without a deadline. */
  remainingSeconds: number | null;
  /** mm:ss, empty without a deadline. */
  label: string;
  expired: boolean;
}

/**
 * Counts down to `deadline` (an ISO time or epoch milliseconds). At zero the ticking stops and
 * `onExpire` runs once, so the caller can clear what expired.
 */
export function useCountdown(deadline: string | number | null | undefined, onExpire?: () => void): Countdown {
  const target = toTime(deadline);
  const [now, setNow] = useState(() => Date.now());
  const onExpireRef = useRef(onExpire);
  onExpireRef.current = onExpire;

  useEffect(() => {
    if (target === null) return;
    const start = Date.now();
    setNow(start);
    if (start >= target) {
      onExpireRef.current?.();
      return;
    }
    const timer = window.setInterval(() => {
      const tick = Date.now();
      setNow(tick);
      if (tick >= target) {
        window.clearInterval(timer);
        onExpireRef.current?.();
      }
    }, TICK_MS);
    return () => window.clearInterval(timer);
  }, [target]);

  if (target === null) return { remainingSeconds: null, label: '', expired: false };
  const remainingSeconds = Math.max(0, Math.ceil((target - now) / 1000));
  return { remainingSeconds, label: formatCountdown(remainingSeconds), expired: remainingSeconds === 0 };
}
