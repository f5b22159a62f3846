import type { ChangedFileDto, DiffFileDto, VersionDiffDto } from '@sitehall/contracts';
import { formatBytes } from '@sitehall/contracts';
import { Card, Empty, Table, type TableProps, Tabs, Tag, Typography } from 'antd';

const fileColumn = {
  title: '文件',
  dataIndex: 'file',
  key: 'file',
  render: (file: string) => <Typography.Text code>{file}</Typography.Text>,
};

const sizeColumns: TableProps<DiffFileDto>['columns'] = [
  fileColumn,
  { title: '大小', dataIndex: 'size', key: 'size', width: 130, align: 'right', render: formatBytes },
];

/** "+1.5 KB" / "-0.2 KB" */
function sizeDelta(change: ChangedFileDto): string {
  const delta = change.new_size - change.old_size;
  if (delta === 0) return '大小不变';
  return `${delta > 0 ? '+' : '-'}${formatBytes(Math.abs(delta))}`;
}

const changedColumns: TableProps<ChangedFileDto>['columns'] = [
  fileColumn,
  { title: '原大小', dataIndex: 'old_size', key: 'old', width: 120, align: 'right', render: formatBytes },
  { title: '新大小', dataIndex: 'new_size', key: 'new', width: 120, align: 'right', render: formatBytes },
  {
    title: '变化',
    key: 'delta',
    width: 120,
    align: 'right',
    render: (_, change) => (
      <span className={change.new_size >= change.old_size ? 'diff-delta--up' : 'diff-delta--down'}>
        {sizeDelta(change)}
      </span>
    ),
  },
];

function DiffTable<T extends { file: string }>({
  rows,
  columns,
  empty,
}: {
  rows: T[];
  columns: TableProps<T>['columns'];
  empty: string;
}) {
  return (
    <Table<T>
      rowKey="file"
      size="small"
      columns={columns}
      dataSource={rows}
      pagination={rows.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} /> }}
    />
  );
}

/** What the waiting version changes against the live one: added, removed and changed files. */
export function VersionDiffCard({ diff }: { diff: VersionDiffDto }) {
  return (
    <Card
      title={`版本差异：线上 v${diff.from_version} → 待审 v${diff.to_version}`}
      className="review-detail__card"
      extra={
        <span className="diff-summary">
          <Tag color="green">新增 {diff.added.length}</Tag>
          <Tag color="red">删除 {diff.removed.length}</Tag>
          <Tag color="orange">修改 {diff.changed.length}</Tag>
          <Tag>未变 {diff.unchanged_count}</Tag>
        </span>
      }
    >
      <Tabs
        size="small"
        items={[
          {
            key: 'changed',
            label: `修改（${diff.changed.length}）`,
            children: <DiffTable rows={diff.changed} columns={changedColumns} empty="没有修改的文件" />,
          },
          {
            key: 'added',
            label: `新增（${diff.added.length}）`,
            children: <DiffTable rows={diff.added} columns={sizeColumns} empty="没有新增的文件" />,
          },
          {
            key: 'removed',
            label: `删除（${diff.removed.length}）`,
            children: <DiffTable rows={diff.removed} columns={sizeColumns} empty="没有删除的文件" />,
          },
        ]}
      />
    </Card>
  );
}
