/**
 * What every page relies on around the router: the data cache and the notice of a lost connection
 * (lib/connection.ts). antd's theme, locale and message host (AntdShell) come with the pages that
 * use antd, through lazyInShell.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, type ReactNode } from 'react';
import { ApiError } from './api/client';
import { ConnectionNotice } from './components/ConnectionNotice';
import { importChunk } from './lib/connection';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // A 4xx answer will not change by asking again; network trouble might.
        retry: (failures, error) =>
          failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}

export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionNotice />
      {children}
    </QueryClientProvider>
  );
}

/**
 * A component loaded on demand inside AntdShell (antd's theme and locale) and, unless `feedback` is
 * false, AntdFeedback (App.useApp's message and modal host); all load at once, not one after the
 * other. `inline`: no element is added around it. `load` imports its chunk with importChunk, so a
 * lost connection waits for the server instead of failing.
 */
export function lazyInShell<P extends object>(
  load: () => Promise<ComponentType<P>>,
  { inline = false, feedback = true }: { inline?: boolean; feedback?: boolean } = {},
) {
  return lazy(async () => {
    const [Component, { AntdShell }, host] = await Promise.all([
      load(),
      importChunk(() => import('./AntdShell')),
      feedback ? importChunk(() => import('./AntdFeedback')) : null,
    ]);
    const Feedback = host?.AntdFeedback;
    return {
      default: (props: P) => (
        <AntdShell>
          {Feedback ? (
            <Feedback inline={inline}>
              <Component {...props} />
            </Feedback>
          ) : (
            <Component {...props} />
          )}
        </AntdShell>
      ),
    };
  });
}
