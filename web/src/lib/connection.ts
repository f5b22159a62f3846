/**
 * Whether the server can be reached, as the app last found out (docs/decisions/web-app.md "A lost
 * connection"). A request or a page's code that got no answer makes the app ask once (a probe of
 * /api/config/public); when that gets no answer either, the connection is lost: the notice shows
 * (components/ConnectionNotice.tsx), TanStack Query holds its queries (onlineManager), and the probe
 * repeats, 1 s, 2 s, 4 s … then every 10 s, until the server answers. Then the held queries run,
 * stylesheets that failed meanwhile load again, and the code that waited is imported again.
 */
import { onlineManager } from '@tanstack/react-query';
import axios from 'axios';
import { ApiError, apiClient } from '../api/client';

export type ConnectionState = 'online' | 'lost' | 'back';

/** How long 已重新连接服务器 stays before the notice goes. */
export const BACK_NOTICE_MS = 3000;
const PROBE_TIMEOUT_MS = 5000;
const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 10_000];

let state: ConnectionState = 'online';
const listeners = new Set<() => void>();
let probing: Promise<boolean> | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let backTimer: ReturnType<typeof setTimeout> | null = null;
let attempt = 0;
let waiting: Array<() => void> = [];

function setState(next: ConnectionState) {
  if (state === next) return;
  state = next;
  for (const listener of listeners) listener();
}

export function connectionState(): ConnectionState {
  return state;
}

export function subscribeConnection(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Whether the server answers at all: any answer but a proxy's 502 or 504 (the app's own 503, a
 * database away, still serves the app's code). Past the app's client, so it reports nothing itself.
 */
async function serverAnswers(): Promise<boolean> {
  try {
    const res = await axios.request({
      baseURL: '/api',
      url: '/config/public',
      adapter: apiClient.defaults.adapter,
      timeout: PROBE_TIMEOUT_MS,
      headers: { Accept: 'application/json' },
      validateStatus: () => true,
    });
    return res.status !== 502 && res.status !== 504;
  } catch {
    return false;
  }
}

/** One probe at a time; what it finds sets the state. */
function probe(): Promise<boolean> {
  probing ??= serverAnswers().then((answers) => {
    probing = null;
    if (answers) connectionBack();
    else connectionLost();
    return answers;
  });
  return probing;
}

function connectionLost() {
  if (backTimer) clearTimeout(backTimer);
  backTimer = null;
  setState('lost');
  onlineManager.setOnline(false);
  if (retryTimer) return;
  const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
  attempt += 1;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    void probe();
  }, delay);
}

function connectionBack() {
  attempt = 0;
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  if (state !== 'lost') return;
  setState('back');
  reloadFailedStylesheets();
  onlineManager.setOnline(true);
  const resume = waiting;
  waiting = [];
  for (const go of resume) go();
  backTimer = setTimeout(() => {
    backTimer = null;
    if (state === 'back') setState('online');
  }, BACK_NOTICE_MS);
}

/**
 * Something got no answer: asks the server once. True when the connection is lost (the notice now
 * shows and the app waits for it), false when the server answers (the failure is something else).
 */
export function reportNoAnswer(): Promise<boolean> {
  if (state === 'lost') return Promise.resolve(true);
  return probe().then((answers) => !answers);
}

/** Asks at once instead of waiting for the next probe (the notice's 立即重试). */
export function retryConnectionNow(): void {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  void probe();
}

/** Resolves once the server answers again (at once unless the connection is lost). */
export function whenConnected(): Promise<void> {
  if (state !== 'lost') return Promise.resolve();
  return new Promise((resolve) => waiting.push(resolve));
}

/**
 * A stylesheet a page's code brought (Vite adds a <link> per chunk's CSS, once) that failed while
 * the server was away: put in again, or the page would stay unstyled.
 */
function reloadFailedStylesheets() {
  if (typeof document === 'undefined') return;
  for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')) {
    if (link.sheet) continue;
    const again = link.cloneNode() as HTMLLinkElement;
    link.replaceWith(again);
  }
}

/** A failed request that got no answer (or a proxy's 502/504) makes the app ask whether the server is there. */
apiClient.interceptors.response.use(undefined, (error: unknown) => {
  if (error instanceof ApiError && (error.status === 0 || error.status === 502 || error.status === 504)) {
    void reportNoAnswer();
  }
  return Promise.reject(error);
});

/** The address a browser names in a failed dynamic import's message (Chromium, Firefox). */
function failedModuleUrl(error: unknown): string | null {
  const text = error instanceof Error ? error.message : String(error);
  return /(https?:\/\/\S+?\.js)\b/.exec(text)?.[1] ?? null;
}

let retryCount = 0;
/** The retried import of each failed address, shared by everything that waits for that chunk. */
const retried = new Map<string, Promise<unknown>>();
function importAgain(url: string): Promise<unknown> {
  let again = retried.get(url);
  if (!again) {
    again = import(/* @vite-ignore */ `${url}?retry=${++retryCount}`);
    again.catch(() => retried.delete(url));
    retried.set(url, again);
  }
  return again;
}

/**
 * A chunk of the app's code, imported once the server answers. A chunk that got no answer is
 * imported again when the connection is back: under another address (`?retry=n`), because Chromium
 * keeps a failed import's result for the page's life; its own imports resolve as before. When the
 * server answers and the chunk still fails (a redeploy removed it), the error goes on to the error
 * screen, whose 刷新页面 loads the new build.
 */
export async function importChunk<M>(
  load: () => Promise<M>,
  reimport: (url: string) => Promise<unknown> = importAgain,
): Promise<M> {
  let error: unknown;
  try {
    return await load();
  } catch (failed) {
    error = failed;
  }
  for (let tries = 0; ; tries++) {
    const lost = await reportNoAnswer();
    if (!lost && tries > 0) throw error;
    if (lost) await whenConnected();
    try {
      const url = failedModuleUrl(error);
      return (url ? await reimport(url) : await load()) as M;
    } catch (failed) {
      error = failed;
    }
  }
}

/** Back to the first state (tests). */
export function resetConnection(): void {
  if (retryTimer) clearTimeout(retryTimer);
  if (backTimer) clearTimeout(backTimer);
  retryTimer = null;
  backTimer = null;
  probing = null;
  attempt = 0;
  waiting = [];
  state = 'online';
  onlineManager.setOnline(true);
  for (const listener of listeners) listener();
}
