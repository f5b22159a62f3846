import type { ProjectStatus } from '@sitehall/contracts';
import { type Key, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

type Filters = Record<string, string>;
type Choices<F extends Filters> = { readonly [K in keyof F]: readonly F[K][] };
type Change<F extends Filters> = Partial<{ page: number; pageSize: number; search: string } & F>;

/**
 * An admin list's view (page, page size, search and the list's own filters) kept in the address,
 * so reload, back and a shared link show the same view. Each change the user makes is a history
 * entry (Back shows the view before it); a correction the page makes itself replaces the entry. Each filter lists its allowed values, the
 * first being the default; the address holds only what differs from the defaults.
 */
export function useListAddress<F extends Filters>(opts: {
  defaultPageSize: number;
  pageSizes: readonly number[];
  filters: Choices<F>;
}) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '', 10) || 1);
  const pageSizeParam = Number.parseInt(params.get('page_size') ?? '', 10);
  const pageSize = opts.pageSizes.includes(pageSizeParam) ? pageSizeParam : opts.defaultPageSize;
  const search = params.get('search')?.trim() ?? '';
  const filterKeys = Object.keys(opts.filters) as Array<keyof F & string>;
  const filters = {} as F;
  for (const key of filterKeys) {
    const allowed = opts.filters[key];
    const value = params.get(key) as F[typeof key] | null;
    filters[key] = value !== null && allowed.includes(value) ? value : (allowed[0] as F[typeof key]);
  }

  const update = (next: Change<F>, how: { replace?: boolean } = {}) => {
    const merged = { page, pageSize, search, ...filters, ...next } as {
      page: number;
      pageSize: number;
      search: string;
    } & F;
    const out = new URLSearchParams();
    for (const key of filterKeys) if (merged[key] !== opts.filters[key][0]) out.set(key, merged[key]);
    if (merged.search) out.set('search', merged.search);
    if (merged.page > 1) out.set('page', String(merged.page));
    if (merged.pageSize !== opts.defaultPageSize) out.set('page_size', String(merged.pageSize));
    setParams(out, { replace: how.replace ?? false });
  };

  return { page, pageSize, search, filters, update };
}

/** After the last rows of the last page went (deleted, decided elsewhere), show the new last page. */
export function useStayOnExistingPage(
  list: { page: number; update: (next: { page: number }, how: { replace: boolean }) => void },
  totalPages: number | undefined,
) {
  useEffect(() => {
    if (totalPages !== undefined && totalPages > 0 && list.page > totalPages)
      list.update({ page: totalPages }, { replace: true });
  }, [totalPages, list]);
}

/**
 * Rows picked for a batch action. The selection belongs to the list's filter (`view`: tab, search,
 * risk), not to its page: paging keeps it (antd's preserveSelectedRowKeys), and each picked row is
 * kept with its data, so a batch counts and acts on rows of other pages too; a new filter starts a
 * new selection. A row on screen is read from the page (its newest data), one on another page as it
 * was when picked. The checkboxes are named in Chinese for screen readers (antd's own names are
 * English: "Select all", "Select row 3"): 全选本页, and 选择 plus the row's name.
 */
export function useRowSelection<Row extends { id: number; name: string }>(
  view: unknown,
  rows: readonly Row[],
) {
  const [picked, setPicked] = useState<ReadonlyMap<number, Row>>(new Map());
  const viewKey = JSON.stringify(view);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on every change of the view
  useEffect(() => setPicked(new Map()), [viewKey]);
  const onScreen = new Map(rows.map((row) => [row.id, row]));
  const selected = [...picked.values()].map((row) => onScreen.get(row.id) ?? row);
  return {
    /** The picked rows, on this page or others, in the order they were picked. */
    selected,
    clear: () => setPicked(new Map()),
    rowSelection: {
      preserveSelectedRowKeys: true,
      selectedRowKeys: [...picked.keys()],
      onChange: (keys: Key[]) =>
        setPicked((before) => {
          const next = new Map<number, Row>();
          for (const key of keys) {
            const row = onScreen.get(Number(key)) ?? before.get(Number(key));
            if (row) next.set(row.id, row);
          }
          return next;
        }),
      columnWidth: 40,
      getTitleCheckboxProps: () => ({ 'aria-label': '全选本页' }),
      getCheckboxProps: (row: Row) => ({ 'aria-label': `选择 ${row.name}` }),
    },
  };
}

const NO_ACTIONS = { approve: false, reject: false, publish: false, unpublish: false, takedown: false };

/**
 * A list's rows with the ones just decided from it kept where they were, showing their new status
 * and no quick action, until the view (tab, page, search, sort) changes. A decided row that left
 * the list at once put the next row's 通过 under the pointer: an outside review's second click, 0.7 s
 * after the first, published a site no one had looked at.
 */
export function useKeptRows<Row extends { id: number; status: ProjectStatus; abilities: object }>(
  view: unknown,
  rows: readonly Row[],
  decided: ReadonlyMap<number, ProjectStatus>,
): Row[] {
  const viewKey = JSON.stringify(view);
  const shown = useRef<{ viewKey: string; rows: readonly Row[] }>({ viewKey, rows });
  const before = shown.current.viewKey === viewKey ? shown.current.rows : [];
  // A row still in the list is the server's; one that left it is kept as it was, decided.
  const out = [...rows];
  before.forEach((row, index) => {
    if (decided.has(row.id) && !out.some((r) => r.id === row.id))
      out.splice(Math.min(index, out.length), 0, kept(row, decided));
  });
  useEffect(() => {
    shown.current = { viewKey, rows: out };
  });
  return out;
}

function kept<Row extends { id: number; status: ProjectStatus; abilities: object }>(
  row: Row,
  decided: ReadonlyMap<number, ProjectStatus>,
): Row {
  return {
    ...row,
    status: decided.get(row.id) ?? row.status,
    abilities: { ...row.abilities, ...NO_ACTIONS },
  };
}
