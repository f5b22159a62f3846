import type { Pagination } from '@sitehall/contracts';

export function paginate(page: number, pageSize: number, total: number): Pagination {
  return {
    current_page: page,
    total_pages: Math.max(1, Math.ceil(total / pageSize)),
    total_count: total,
    page_size: pageSize,
  };
}
