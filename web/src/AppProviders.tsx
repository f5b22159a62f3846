/**
 * What every page relies on around the router: the data cache. antd's theme, locale and message
 * host (AntdShell) come with the pages that use antd, through lazyInShell.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, type ReactNode } from 'react';
import { ApiError } from './api/client';

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
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}

/**
 * A component loaded on demand, inside AntdShell, which loads at the same time (in parallel, not
 * one after the other). `inline`: the shell adds no element around it.
 */
export function lazyInShell<P extends object>(
  load: () => Promise<ComponentType<P>>,
  { inline = false }: { inline?: boolean } = {},
) {
  return lazy(async () => {
    const [Component, { AntdShell }] = await Promise.all([load(), import('./AntdShell')]);
    return {
      default: (props: P) => (
        <AntdShell inline={inline}>
          <Component {...props} />
        </AntdShell>
      ),
    };
  });
}
