/** Progress and cancellation of one upload at a time; leaving the screen stops it. */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { UploadOptions } from '../api/projects';

export function useUploadTask() {
  const [percent, setPercent] = useState(0);
  const controller = useRef<AbortController | null>(null);

  /** Starts tracking a new upload: pass the result to the upload call. */
  const begin = useCallback((): Required<Pick<UploadOptions, 'signal' | 'onProgress'>> => {
    controller.current?.abort();
    const next = new AbortController();
    controller.current = next;
    setPercent(0);
    return { signal: next.signal, onProgress: setPercent };
  }, []);

  const abort = useCallback(() => {
    controller.current?.abort();
  }, []);

  /** True when the last upload ended because it was cancelled, not because it failed. */
  const wasAborted = useCallback(() => controller.current?.signal.aborted ?? false, []);

  useEffect(() => () => controller.current?.abort(), []);

  return { percent, begin, abort, wasAborted };
}
