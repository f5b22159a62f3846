/**
 * Where a review detail's back link leads: the admin page it was opened from, with that page's
 * search, filters and page number (they live in its address), or the review list when the detail
 * was opened directly.
 */
import { useLocation } from 'react-router-dom';

/** The state a link to a review detail carries. */
export interface ReturnState {
  returnTo: string;
}

/** The state for links on this page: come back here, as it is now. */
export function useReturnState(): ReturnState {
  const { pathname, search } = useLocation();
  return { returnTo: pathname + search };
}

const PLACES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/admin\/reviews(\?|$)/, '返回审核列表'],
  [/^\/admin\/projects(\?|$)/, '返回项目管理'],
  [/^\/admin(\/dashboard)?(\?|$)/, '返回管理概览'],
  [/^\/admin\/audit-logs(\?|$)/, '返回审计日志'],
];

export function returnTarget(state: unknown): { to: string; label: string } {
  const to = (state as Partial<ReturnState> | null)?.returnTo;
  if (typeof to === 'string') {
    for (const [place, label] of PLACES) if (place.test(to)) return { to, label };
  }
  return { to: '/admin/reviews', label: '返回审核列表' };
}
