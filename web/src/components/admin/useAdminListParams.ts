import { ADMIN_TABS, type AdminProjectsQuery, type AdminTab } from '@sitehall/contracts';
import { useSearchParams } from 'react-router-dom';

export const ADMIN_PAGE_SIZES = [10, 20, 50, 100];
export type AdminSort = 'newest' | 'oldest';

/**
 * The admin project lists' query (tab, search, sort, page) lives in the address, so reload, back and
 * a shared link keep the same view.
 */
export function useAdminListParams(defaultPageSize: number) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '', 10) || 1);
  const pageSizeParam = Number.parseInt(params.get('page_size') ?? '', 10);
  const pageSize = ADMIN_PAGE_SIZES.includes(pageSizeParam) ? pageSizeParam : defaultPageSize;
  const search = params.get('search')?.trim() ?? '';
  const statusParam = params.get('status');
  const status: AdminTab = ADMIN_TABS.includes(statusParam as AdminTab) ? (statusParam as AdminTab) : 'all';
  const sort: AdminSort = params.get('sort') === 'oldest' ? 'oldest' : 'newest';

  const query: AdminProjectsQuery = {
    status,
    page,
    page_size: pageSize,
    sort,
    ...(search ? { search } : {}),
  };

  const update = (next: {
    page?: number;
    pageSize?: number;
    search?: string;
    status?: AdminTab;
    sort?: AdminSort;
  }) => {
    const merged = { page, pageSize, search, status, sort, ...next };
    const out = new URLSearchParams();
    if (merged.status !== 'all') out.set('status', merged.status);
    if (merged.search) out.set('search', merged.search);
    if (merged.sort !== 'newest') out.set('sort', merged.sort);
    if (merged.page > 1) out.set('page', String(merged.page));
    if (merged.pageSize !== defaultPageSize) out.set('page_size', String(merged.pageSize));
    setParams(out, { replace: true });
  };

  return { query, page, pageSize, search, status, sort, update };
}

/** "第 2 页，共 5 页，总计 43 项" (spec §2, review list). */
export function pageSummary(page: number, pageSize: number, total: number): string {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return `第 ${Math.min(page, pages)} 页，共 ${pages} 页，总计 ${total} 项`;
}
