import {
  ADMIN_SORTS,
  ADMIN_TABS,
  type AdminProjectsQuery,
  type AdminTab,
  CONTENT_RISK_FILTERS,
} from '@sitehall/contracts';
import type { Paging } from './PagedTable';
import { useListAddress } from './useListAddress';

export const ADMIN_PAGE_SIZES = [10, 20, 50, 100];
export type AdminSort = (typeof ADMIN_SORTS)[number];
/** The risk filter: any level first (the default), then each level and never checked. */
const RISKS = ['any', ...CONTENT_RISK_FILTERS] as const;
export type AdminRiskFilter = (typeof RISKS)[number];

/**
 * The orders of the review queue, its default first: who waited longest is reviewed first, as the
 * dashboard's 待审核项目 says (最早提交的排在最前); the projects list keeps the newest first.
 */
export const QUEUE_SORTS: readonly AdminSort[] = ['oldest', 'newest', 'risk'];

/** The admin project lists' view (tab, search, sort, page) in the address, and its server query. */
export function useAdminListParams(defaultPageSize: number, sorts: readonly AdminSort[] = ADMIN_SORTS) {
  const list = useListAddress<{ status: AdminTab; sort: AdminSort; risk: AdminRiskFilter }>({
    defaultPageSize,
    pageSizes: ADMIN_PAGE_SIZES,
    filters: { status: ADMIN_TABS, sort: sorts, risk: RISKS },
  });
  const { status, sort, risk } = list.filters;
  const query: AdminProjectsQuery = {
    status,
    page: list.page,
    page_size: list.pageSize,
    sort,
    ...(risk !== 'any' ? { risk } : {}),
    ...(list.search ? { search: list.search } : {}),
  };
  /** Which rows the list holds, whatever their order and page: a new one starts a new selection. */
  const filter = { status, risk, search: list.search };
  /** The pager of a page of these lists, with the spec's "第 x 页，共 y 页，总计 z 项". */
  const paging = (total: number): Paging => ({
    page: list.page,
    pageSize: list.pageSize,
    pageSizes: ADMIN_PAGE_SIZES,
    total,
    summary: (count) => pageSummary(list.page, list.pageSize, count),
    onChange: (page, pageSize) => list.update({ page, pageSize }),
  });
  return { ...list, status, sort, risk, query, filter, paging };
}

/** "第 2 页，共 5 页，总计 43 项" (docs/product.md §2, review list). */
export function pageSummary(page: number, pageSize: number, total: number): string {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return `第 ${Math.min(page, pages)} 页，共 ${pages} 页，总计 ${total} 项`;
}
