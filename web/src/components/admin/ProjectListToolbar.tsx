import './admin.css';
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Select } from 'antd';
import type { ReactNode } from 'react';
import { SearchBox } from './SearchBox';
import type { AdminSort } from './useAdminListParams';

interface ProjectList {
  search: string;
  sort: AdminSort;
  update: (next: { search?: string; sort?: AdminSort; page?: number }) => void;
}

/**
 * Above the admin project lists (review list, projects page): search, the list's own filters,
 * sort by upload time or risk, and a refresh. A new search or order starts again from the first page.
 */
export function ProjectListToolbar({
  list,
  refresh,
  refreshing,
  children,
}: {
  list: ProjectList;
  refresh: () => void;
  refreshing: boolean;
  /** Filters of this list, between the search and the order. */
  children?: ReactNode;
}) {
  return (
    <div className="admin-toolbar">
      <SearchBox
        value={list.search}
        label="搜索项目"
        placeholder="搜索项目名称、描述或所有者"
        onSearch={(search) => list.update({ search, page: 1 })}
      />
      {children}
      <Select<AdminSort>
        aria-label="排序"
        value={list.sort}
        onChange={(sort) => list.update({ sort, page: 1 })}
        options={[
          { value: 'newest', label: '最新上传在前' },
          { value: 'oldest', label: '最早上传在前' },
          { value: 'risk', label: '风险最高在前' },
        ]}
        className="admin-toolbar__sort"
      />
      <Button icon={<ReloadOutlined aria-hidden />} onClick={refresh} loading={refreshing}>
        刷新
      </Button>
    </div>
  );
}
