import './admin.css';
import { Alert, Button, Empty, Table, type TableProps } from 'antd';
import { errorMessage } from '../../api/client';
import { LoadFailed } from './LoadFailed';

/** The parts of a TanStack list query the table reads. */
export interface PagedQuery {
  isError: boolean;
  error: unknown;
  data: unknown;
  isPending: boolean;
  isFetching: boolean;
  isPlaceholderData: boolean;
  refetch: () => unknown;
}

export interface Paging {
  page: number;
  pageSize: number;
  pageSizes: number[];
  total: number;
  /** The line beside the pager ("第 1 页，共 3 页，总计 25 项", "共 25 条"). */
  summary: (total: number) => string;
  onChange: (page: number, pageSize: number) => void;
}

type PagedTableProps<T> = Omit<
  TableProps<T>,
  'dataSource' | 'loading' | 'pagination' | 'onChange' | 'locale'
> & {
  query: PagedQuery;
  rows: T[];
  paging: Paging;
  /** Said when loading fails: as a page-size notice over rows already shown, or in their place. */
  failedTitle: string;
  emptyText: string;
  /**
   * On a phone (under 576 px) each row becomes a card: every cell on its own line under its
   * column's name, status and actions in view without scrolling sideways.
   */
  stackOnPhone?: boolean;
};

/**
 * Each cell carries its column's name, which the phone layout (`paged-table--stack`, admin.css)
 * shows before it.
 */
export function labelCells<T>(columns: NonNullable<TableProps<T>['columns']>): TableProps<T>['columns'] {
  return columns.map((column) => ({
    ...column,
    onCell: (row: T, index?: number) => ({
      ...column.onCell?.(row, index),
      'data-label': typeof column.title === 'string' ? column.title : undefined,
    }),
  }));
}

/**
 * An admin list on the server's pages: rows with a pager, a loading state while a new page comes,
 * an empty text, and a load failure that keeps the rows already shown (with a notice) or, with
 * nothing to show, says why with a way to try again.
 */
export function PagedTable<T extends object>({
  query,
  rows,
  paging,
  failedTitle,
  emptyText,
  stackOnPhone = false,
  ...table
}: PagedTableProps<T>) {
  const columns = stackOnPhone && table.columns ? labelCells(table.columns) : table.columns;
  if (query.isError && !query.data) {
    return <LoadFailed title={failedTitle} error={query.error} onRetry={() => query.refetch()} />;
  }
  return (
    <>
      {query.isError && (
        <Alert
          type="warning"
          showIcon
          className="admin-card-alert"
          title={`${failedTitle}：${errorMessage(query.error)}`}
          action={
            <Button size="small" onClick={() => query.refetch()}>
              重试
            </Button>
          }
        />
      )}
      <Table<T>
        rowKey="id"
        {...table}
        columns={columns}
        className={
          [table.className, stackOnPhone ? 'paged-table--stack' : ''].filter(Boolean).join(' ') || undefined
        }
        dataSource={rows}
        loading={query.isPending || (query.isFetching && query.isPlaceholderData)}
        pagination={{
          current: paging.page,
          pageSize: paging.pageSize,
          total: paging.total,
          showSizeChanger: true,
          pageSizeOptions: paging.pageSizes,
          showTotal: paging.summary,
        }}
        onChange={(pagination) =>
          paging.onChange(pagination.current ?? 1, pagination.pageSize ?? paging.pageSize)
        }
        // While the first page loads there is nothing to say yet: "no projects" would be untrue.
        locale={{
          emptyText: query.isPending ? (
            <div className="admin-table-loading" />
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={emptyText} />
          ),
        }}
      />
    </>
  );
}
