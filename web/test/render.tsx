import { createCache, StyleProvider } from '@ant-design/cssinjs';
import { act, render, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { expect, vi } from 'vitest';
import { AppProviders, createQueryClient } from '../src/AppProviders';
import { routes } from '../src/router';

/**
 * antd's CSS-in-JS rules go to a detached node: jsdom matches every rule against every ancestor
 * in getComputedStyle, which Testing Library calls for each element it checks, and with antd's
 * thousands of rules that takes seconds per element. Tests check behaviour, not looks.
 * (@ant-design/cssinjs is antd's own styling engine; web lists it as a dev dependency.)
 */
const antdStyles = document.createElement('div');
/**
 * ...and each component's rules are worked out once a file. antd's cache drops a component's rules
 * when the last element using them unmounts, as every test's cleanup and every change of page
 * does, and the next render works them out again: a tenth of a page test's time. Here an entry
 * whose last user went stays (counted 0), so a later render finds it; its style element goes as
 * before. Nothing reads the rules in these tests (the node above is detached).
 */
const antdCache = createCache();
const dropping = antdCache.opUpdate.bind(antdCache);
antdCache.opUpdate = (key, next) =>
  dropping(key, (before) => next(before) ?? (before ? [0, before[1]] : null));

type Entry = string | { pathname: string; search?: string; state?: unknown };

/** Renders the whole app (providers, routes, guards) at a path, as the browser would. */
export function renderApp(entry: Entry = '/') {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  const router = createMemoryRouter(routes, { initialEntries: [entry] });
  const user = userEvent.setup();
  const view = render(
    <StyleProvider container={antdStyles} cache={antdCache}>
      <AppProviders queryClient={queryClient}>
        <RouterProvider router={router} />
      </AppProviders>
    </StyleProvider>,
  );
  return { ...view, router, queryClient, user };
}

/** Renders one component with the app's data cache around it, for components tested on their own. */
export function renderInProviders(node: ReactNode) {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  const view = render(
    <StyleProvider container={antdStyles} cache={antdCache}>
      <AppProviders queryClient={queryClient}>{node}</AppProviders>
    </StyleProvider>,
  );
  return { ...view, queryClient };
}

/**
 * Hides or shows the page's tab, as a browser does when the user switches tabs: TanStack Query
 * reads `document.visibilityState` before each interval refetch.
 */
export function setTabVisible(visible: boolean) {
  if (visible) Reflect.deleteProperty(document, 'visibilityState');
  else Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  document.dispatchEvent(new Event('visibilitychange'));
}

/**
 * Runs `body` with setInterval faked, so a test can jump a query's refetchInterval ahead; the
 * intervals run on with real time too, and the page's own timeouts stay real.
 */
export async function withFakeIntervals(body: () => Promise<void>) {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'], shouldAdvanceTime: true });
  try {
    await body();
  } finally {
    setTabVisible(true);
    vi.useRealTimers();
  }
}

const passTime = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

/**
 * What a page about a project waiting for review does (docs/decisions/review.md "A decision reaches
 * the pages"), inside withFakeIntervals: it reads the project again 10 s later while its tab is
 * visible and not at all while hidden; once `decide` has made the server answer with the decided
 * project, the next read shows it (`shown` passes) and the reads stop.
 */
export async function expectReadsUntilDecided(reads: () => number, decide: () => void, shown: () => unknown) {
  let before = reads();
  await passTime(10_000);
  await waitFor(() => expect(reads()).toBeGreaterThan(before));

  setTabVisible(false);
  before = reads();
  await passTime(30_000);
  expect(reads()).toBe(before);
  setTabVisible(true);

  decide();
  await passTime(10_000);
  await waitFor(shown);
  before = reads();
  await passTime(60_000);
  expect(reads()).toBe(before);
}
