/**
 * The filters of my projects (docs/product.md §2): all, pending, approved (labelled 已发布, includes
 * published), rejected, taken down.
 */
import { type MyProjectStats, OWNER_FILTERS, type OwnerFilter } from '@sitehall/contracts';

export interface ProjectFilter {
  value: OwnerFilter;
  label: string;
  /** What an empty list says under this filter. */
  emptyText: string;
  /** How many projects the filter holds, from the dashboard counters. */
  count: (stats: MyProjectStats) => number;
}

export const PROJECT_FILTERS: readonly ProjectFilter[] = [
  { value: 'all', label: '全部', emptyText: '还没有项目，上传你的第一个项目吧', count: (s) => s.total },
  { value: 'pending', label: '待审核', emptyText: '暂无待审核的项目', count: (s) => s.pending },
  { value: 'approved', label: '已发布', emptyText: '暂无已发布的项目', count: (s) => s.published },
  // Reviewed counts approved, published, rejected and taken down; published counts the first two.
  {
    value: 'rejected',
    label: '已拒绝',
    emptyText: '暂无已拒绝的项目',
    count: (s) => s.reviewed - s.published - s.taken_down,
  },
  { value: 'taken_down', label: '已下线', emptyText: '暂无已下线的项目', count: (s) => s.taken_down },
];

export function parseFilter(value: string | null): OwnerFilter {
  return (OWNER_FILTERS as readonly string[]).includes(value ?? '') ? (value as OwnerFilter) : 'all';
}

export function filterOf(value: OwnerFilter): ProjectFilter {
  return PROJECT_FILTERS.find((f) => f.value === value) ?? PROJECT_FILTERS[0]!;
}
