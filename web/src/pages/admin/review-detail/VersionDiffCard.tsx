import type { ChangedFileDto, DiffFileDto, VersionDiffDto } from '@sitehall/contracts';
import { formatBytes } from '@sitehall/contracts';
import { Button, Card, Col, Empty, Row, Table, type TableProps, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { SiteRulesText } from '../../../components/SiteRoutingCard';
import { FileLineDiff } from './FileLineDiff';

// File names break anywhere (a path has no spaces to wrap at) but keep a width of their own, so a
// phone's narrow table hides the size columns (the size change too, below 576 px) instead of
// squeezing names to one character a line.
const fileColumn = {
  title: '文件',
  dataIndex: 'file',
  key: 'file',
  render: (file: string) => (
    <Typography.Text code className="diff-file">
      {file}
    </Typography.Text>
  ),
};

const sizeColumns: TableProps<DiffFileDto>['columns'] = [
  fileColumn,
  { title: '大小', dataIndex: 'size', key: 'size', width: 110, align: 'right', render: formatBytes },
];

/** "+1.5 KB" / "-0.2 KB" */
function sizeDelta(change: ChangedFileDto): string {
  const delta = change.new_size - change.old_size;
  if (delta === 0) return '大小不变';
  return `${delta > 0 ? '+' : '-'}${formatBytes(Math.abs(delta))}`;
}

const changedColumns = (
  opened: readonly string[],
  toggle: (file: string) => void,
): TableProps<ChangedFileDto>['columns'] => [
  fileColumn,
  {
    title: '原大小',
    dataIndex: 'old_size',
    key: 'old',
    width: 100,
    align: 'right',
    responsive: ['md'],
    render: formatBytes,
  },
  {
    title: '新大小',
    dataIndex: 'new_size',
    key: 'new',
    width: 100,
    align: 'right',
    responsive: ['md'],
    render: formatBytes,
  },
  {
    title: '变化',
    key: 'delta',
    width: 96,
    align: 'right',
    responsive: ['sm'],
    render: (_, change) => (
      <span className={change.new_size >= change.old_size ? 'diff-delta--up' : 'diff-delta--down'}>
        {sizeDelta(change)}
      </span>
    ),
  },
  {
    title: '内容',
    key: 'lines',
    width: 92,
    align: 'right',
    render: (_, change) =>
      change.text ? (
        <Button
          type="link"
          size="small"
          aria-expanded={opened.includes(change.file)}
          aria-label={`${opened.includes(change.file) ? '收起' : '查看'} ${change.file} 的逐行差异`}
          onClick={() => toggle(change.file)}
        >
          {opened.includes(change.file) ? '收起' : '逐行差异'}
        </Button>
      ) : (
        <Typography.Text type="secondary">非文本</Typography.Text>
      ),
  },
];

function DiffTable<T extends { file: string }>({
  rows,
  columns,
  empty,
  expandable,
}: {
  rows: T[];
  columns: TableProps<T>['columns'];
  empty: string;
  expandable?: TableProps<T>['expandable'];
}) {
  return (
    <Table<T>
      rowKey="file"
      size="small"
      columns={columns}
      dataSource={rows}
      expandable={expandable}
      className="diff-table"
      pagination={rows.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} /> }}
    />
  );
}

/** Changed files; a text file's line diff opens under its row, loaded only then. */
function ChangedFiles({ diff, projectId }: { diff: VersionDiffDto; projectId: number }) {
  const [opened, setOpened] = useState<string[]>([]);
  const toggle = (file: string) =>
    setOpened((now) => (now.includes(file) ? now.filter((f) => f !== file) : [...now, file]));
  const versions = `v${diff.from_version}→v${diff.to_version}`;
  return (
    <DiffTable
      rows={diff.changed}
      columns={changedColumns(opened, toggle)}
      empty="没有修改的文件"
      expandable={{
        expandedRowKeys: opened,
        showExpandColumn: false,
        rowExpandable: (change) => change.text,
        expandedRowRender: (change) => (
          <FileLineDiff projectId={projectId} path={change.file} versions={versions} />
        ),
      }}
    />
  );
}

/** Whether the waiting version's _redirects or _headers differ from the live one's. */
function rulesChanged(diff: VersionDiffDto): boolean {
  const { live, newest } = diff.site_rules;
  return (
    (live?.redirects ?? null) !== (newest?.redirects ?? null) ||
    (live?.headers ?? null) !== (newest?.headers ?? null)
  );
}

/** What the waiting version changes against the live one: added, removed and changed files. */
export function VersionDiffCard({ diff, projectId }: { diff: VersionDiffDto; projectId: number }) {
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
            children: <ChangedFiles diff={diff} projectId={projectId} />,
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
          ...(rulesChanged(diff)
            ? [
                {
                  key: 'rules',
                  label: '路由规则（有变化）',
                  children: (
                    <Row gutter={16}>
                      <Col xs={24} md={12}>
                        <Typography.Title level={5}>线上 v{diff.from_version}</Typography.Title>
                        <SiteRulesText rules={diff.site_rules.live} version={`线上 v${diff.from_version} `} />
                      </Col>
                      <Col xs={24} md={12}>
                        <Typography.Title level={5}>待审 v{diff.to_version}</Typography.Title>
                        <SiteRulesText rules={diff.site_rules.newest} version={`待审 v${diff.to_version} `} />
                      </Col>
                    </Row>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Card>
  );
}
