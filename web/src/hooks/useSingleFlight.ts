/**
 * One action at a time per key: a call while the same key's action is still on its way does
 * nothing. A button's `loading` shows only once React renders again, which a double-click beats:
 * its second click registered a second account (whose one-time password was never shown), made a
 * second API token, or decided a project twice (success and failure at once).
 */
import { useCallback, useRef } from 'react';

export function useSingleFlight(): <T>(key: string, action: () => Promise<T>) => Promise<T | undefined> {
  const running = useRef(new Set<string>());
  return useCallback(async <T>(key: string, action: () => Promise<T>) => {
    if (running.current.has(key)) return undefined;
    running.current.add(key);
    try {
      return await action();
    } finally {
      running.current.delete(key);
    }
  }, []);
}
