/** The public showcase (GET /api/projects/public, anyone). */
import type { PublicProjectDto, ShowcasePagination, ShowcaseQuery } from '@sitehall/contracts';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { http } from './client';
import { queryKeys } from './query-keys';

export interface ShowcasePage {
  projects: PublicProjectDto[];
  pagination: ShowcasePagination;
}

/** Cards per request; 12 fills three or four columns evenly. */
export const SHOWCASE_PAGE_SIZE = 12;

export const showcaseApi = {
  list: (query: ShowcaseQuery) => http.get<ShowcasePage>('/projects/public', { params: query }),
};

/** The showcase as one growing list: 加载更多 asks for the next page of the same search. */
export function useShowcase(query: Omit<ShowcaseQuery, 'page' | 'page_size'>) {
  const filters = { ...query, page_size: SHOWCASE_PAGE_SIZE };
  return useInfiniteQuery({
    queryKey: queryKeys.showcase.list(filters),
    queryFn: ({ pageParam }) => showcaseApi.list({ ...filters, page: pageParam }),
    initialPageParam: 1,
    getNextPageParam: (last) =>
      last.pagination.current_page < last.pagination.total_pages
        ? last.pagination.current_page + 1
        : undefined,
    placeholderData: keepPreviousData,
  });
}
