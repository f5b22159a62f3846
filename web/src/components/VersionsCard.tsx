/**
 * A project's versions, newest first, with a rollback to any earlier approved one while the project
 * is live (docs/product.md "Deployments": the owner or an admin may roll back) and a download of
 * each version's files (docs/decisions/uploads.md "Download"). Used on the owner's project page and
 * on the admin's review detail.
 */
import './versions.css';
import { DownloadOutlined, RollbackOutlined, SwapOutlined } from '@ant-design/icons';
import {
  type DeploymentDto,
  formatBytes,
  messages,
  type ProjectDto,
  STATUS_LABELS,
} from '@sitehall/contracts';
import {
  App,
  Button,
  Card,
  Empty,
  Grid,
  Space,
  Table,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { errorMessage } from '../api/client';
import { useDownloadProject, useRollbackProject } from '../api/projects';
import { formatDateTime } from '../lib/format';
import { DEPLOYMENT_STATUS_LABELS, uploadTypeLabel } from '../lib/project-labels';

const PAGE_SIZE = 10;

/**
 * `audience`: the owner's page calls an approved version 已发布, the word of the owner's status tag
 * (STATUS_LABELS); the admin's screens say 已通过, as their status tags do.
 */
export function VersionsCard({
  project,
  className,
  audience = 'admin',
}: {
  project: ProjectDto;
  className?: string;
  audience?: 'owner' | 'admin';
}) {
  const { message, modal } = App.useApp();
  const narrow = Grid.useBreakpoint().sm === false;
  const rollback = useRollbackProject(project.id);
  const download = useDownloadProject();
  const versions = [...(project.deployments ?? [])].sort((a, b) => b.version - a.version);
  const liveVersion = versions.find((v) => v.is_live)?.version;
  // A version newer than the live one (after a rollback) is a step forward, not back: 切换到此版本.
  const isForward = (version: DeploymentDto) => liveVersion !== undefined && version.version > liveVersion;

  const confirmRollback = (version: DeploymentDto) =>
    modal.confirm({
      title: isForward(version) ? `切换到版本 v${version.version}？` : `回滚到版本 v${version.version}？`,
      content: '线上站点会立即切换到该版本的文件，之后仍可再切换回来。',
      okText: isForward(version) ? '切换' : '回滚',
      cancelText: '取消',
      onOk: async () => {
        try {
          await rollback.mutateAsync(version.id);
          message.success(isForward(version) ? messages.review.switchDone : messages.review.rollbackDone);
        } catch (error) {
          message.error(errorMessage(error));
        }
      },
    });

  const startDownload = async (version: DeploymentDto) => {
    try {
      await download.mutateAsync({ id: project.id, deploymentId: version.id });
    } catch (error) {
      message.error(`下载失败：${errorMessage(error)}`);
    }
  };

  const versionCell = (v: DeploymentDto) => (
    <span className="version-cell">
      <strong>v{v.version}</strong>
      {v.is_live && <Tag color="green">线上</Tag>}
    </span>
  );

  // A takedown is stored as rejected on the versions it ended: said as what happened.
  const statusTag = (v: DeploymentDto) =>
    v.taken_down ? (
      <Tag color="volcano">{STATUS_LABELS.taken_down}</Tag>
    ) : (
      <Tag color={DEPLOYMENT_STATUS_LABELS[v.status].color}>
        {audience === 'owner' && v.status === 'approved'
          ? STATUS_LABELS.approved
          : DEPLOYMENT_STATUS_LABELS[v.status].label}
      </Tag>
    );

  const filesCell = (v: DeploymentDto) => (
    <span className="version-files">
      {v.file_count} 个 · {formatBytes(v.file_size)} · {uploadTypeLabel(v)}
      {v.reviewed_at && (
        <Typography.Text type="secondary" className="version-files__comment">
          {v.reviewed_by ?? '—'} 审核于 {formatDateTime(v.reviewed_at)}
        </Typography.Text>
      )}
      {v.review_comment && (
        <Typography.Text type="secondary" className="version-files__comment">
          审核意见：{v.review_comment}
        </Typography.Text>
      )}
    </span>
  );

  const actions = (v: DeploymentDto) => (
    <Space size={4}>
      {/* Whoever sees the versions may download each of them: the owner or an admin. */}
      <Tooltip title={`下载 v${v.version} 的文件`}>
        <Button
          size="small"
          icon={<DownloadOutlined aria-hidden />}
          aria-label={`下载 v${v.version}`}
          loading={download.isPending && download.variables?.deploymentId === v.id}
          onClick={() => startDownload(v)}
        />
      </Tooltip>
      {/* The server says which versions this user may make live now (DeploymentDto.abilities). */}
      {v.abilities.rollback && (
        <Button
          size="small"
          icon={isForward(v) ? <SwapOutlined aria-hidden /> : <RollbackOutlined aria-hidden />}
          loading={rollback.isPending && rollback.variables === v.id}
          onClick={() => confirmRollback(v)}
        >
          {isForward(v) ? '切换到此版本' : '回滚'}
        </Button>
      )}
    </Space>
  );

  const columns: TableProps<DeploymentDto>['columns'] = narrow
    ? // On a phone one column, each version's facts stacked: the table fits, nothing off to the side.
      [
        {
          title: '版本',
          key: 'version',
          render: (_, v) => (
            <div className="version-stack">
              <span className="version-stack__head">
                {versionCell(v)}
                {statusTag(v)}
              </span>
              {filesCell(v)}
              <Typography.Text type="secondary" className="version-files__comment">
                上传于 {formatDateTime(v.created_at)}
              </Typography.Text>
              {actions(v)}
            </div>
          ),
        },
      ]
    : [
        // 版本, 状态 and 上传时间 as wide as what they show (v12 线上, 审核未通过, a date and time):
        // wider, at 1366 px 文件 was left some 90 px and its facts broke a word a line.
        { title: '版本', key: 'version', width: 104, render: (_, v) => versionCell(v) },
        { title: '状态', key: 'status', width: 104, render: (_, v) => statusTag(v) },
        { title: '文件', key: 'files', render: (_, v) => filesCell(v) },
        {
          title: '上传时间',
          dataIndex: 'created_at',
          key: 'created_at',
          width: 140,
          render: (at: string) => formatDateTime(at),
        },
        { title: '操作', key: 'actions', width: 164, render: (_, v) => actions(v) },
      ];

  return (
    <Card title="版本记录" className={className}>
      <Table<DeploymentDto>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={versions}
        pagination={versions.length > PAGE_SIZE ? { pageSize: PAGE_SIZE, showSizeChanger: false } : false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无版本" /> }}
        scroll={narrow ? undefined : { x: 600 }}
      />
    </Card>
  );
}
