import { useSyncExternalStore } from 'react';

/** A finger for a pointer (a phone, a tablet): nothing to drag files with, only to tap. */
const TOUCH_QUERY = '(pointer: coarse)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(TOUCH_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const matches = () => window.matchMedia(TOUCH_QUERY).matches;

/** Whether the screen's main pointer is a finger, kept up to date as that changes. */
export function useTouchScreen(): boolean {
  return useSyncExternalStore(subscribe, matches, () => false);
}
