/** The public showcase (GET /api/projects/public, anyone). */
import {
  type EndpointData,
  SHOWCASE_SORTS,
  type ShowcaseQuery,
  type ShowcaseSort,
} from '@sitehall/contracts';
import {
  infiniteQueryOptions,
  keepPreviousData,
  type QueryClient,
  useInfiniteQuery,
} from '@tanstack/react-query';
import { call } from './client';
import { queryKeys } from './query-keys';

export type ShowcasePage = EndpointData<'showcase'>;

/** Cards per request; 12 fills three or four columns evenly. */
export const SHOWCASE_PAGE_SIZE = 12;

export const showcaseApi = {
  list: (query: ShowcaseQuery) => call('showcase', { query }),
};

/** Search, sort and the 精选 filter as the showcase's address holds them. */
export interface ShowcaseFilters {
  search: string;
  sort: ShowcaseSort;
  featured: boolean;
}

export function showcaseFiltersOf(params: URLSearchParams): ShowcaseFilters {
  const sortParam = params.get('sort');
  return {
    search: params.get('search')?.trim() ?? '',
    sort: SHOWCASE_SORTS.includes(sortParam as ShowcaseSort) ? (sortParam as ShowcaseSort) : 'latest',
    featured: params.get('featured') === 'true',
  };
}

function showcaseOptions(filters: ShowcaseFilters) {
  const query = {
    sort: filters.sort,
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.featured ? { featured: 'true' as const } : {}),
    page_size: SHOWCASE_PAGE_SIZE,
  };
  return infiniteQueryOptions({
    queryKey: queryKeys.showcase.list(query),
    queryFn: ({ pageParam }) => showcaseApi.list({ ...query, page: pageParam }),
    initialPageParam: 1,
    getNextPageParam: (last: ShowcasePage) =>
      last.pagination.current_page < last.pagination.total_pages
        ? last.pagination.current_page + 1
        : undefined,
  });
}

/** The showcase as one growing list: 加载更多 asks for the next page of the same search. */
export function useShowcase(filters: ShowcaseFilters) {
  return useInfiniteQuery({ ...showcaseOptions(filters), placeholderData: keepPreviousData });
}

/**
 * Asks for the showcase's first page as the app starts on /public, while the page's code is still
 * loading, rather than after it: on a slow connection that is a round trip saved.
 */
export function prefetchShowcase(queryClient: QueryClient, params: URLSearchParams): void {
  // Fetched into the cache unless fresh there; a failure is the page's to show when it asks.
  queryClient.infiniteQuery(showcaseOptions(showcaseFiltersOf(params))).catch(() => undefined);
}
