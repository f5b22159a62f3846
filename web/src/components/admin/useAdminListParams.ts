import { ADMIN_TABS, type AdminProjectsQuery, type AdminTab } from '@sitehall/contracts';
import { useListAddress } from './useListAddress';

export const ADMIN_PAGE_SIZES = [10, 20, 50, 100];
const SORTS = ['newest', 'oldest'] as const;
export type AdminSort = (typeof SORTS)[number];

/** The admin project lists' view (tab, search, sort, page) in the address, and its server query. */
export function useAdminListParams(defaultPageSize: number) {
  const list = useListAddress<{ status: AdminTab; sort: AdminSort }>({
    defaultPageSize,
    pageSizes: ADMIN_PAGE_SIZES,
    filters: { status: ADMIN_TABS, sort: SORTS },
  });
  const { status, sort } = list.filters;
  const query: AdminProjectsQuery = {
    status,
    page: list.page,
    page_size: list.pageSize,
    sort,
    ...(list.search ? { search: list.search } : {}),
  };
  return { ...list, status, sort, query };
}

/** "第 2 页，共 5 页，总计 43 项" (spec §2, review list). */
export function pageSummary(page: number, pageSize: number, total: number): string {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return `第 ${Math.min(page, pages)} 页，共 ${pages} 页，总计 ${total} 项`;
}
