import { CheckOutlined, CloseOutlined, DeleteOutlined } from '@ant-design/icons';
import {
  type AdminProjectDto,
  BATCH_MAX_PROJECTS,
  type BatchAction,
  messages,
  REVIEW_ACTION_LABELS,
} from '@sitehall/contracts';
import { App, Button, Popconfirm, Space, Typography } from 'antd';
import { useState } from 'react';
import { useBatchAction } from '../../api/admin';
import { errorMessage } from '../../api/client';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { DeleteReason } from './DeleteReason';
import { isFlagged } from './projectFacts';
import { ReasonModal } from './ReasonModal';
import './admin.css';

interface BatchActionBarProps {
  /** The selected projects, on the page on screen or others, with what the bar counts in them. */
  selected: readonly AdminProjectDto[];
  /** Called after a batch ran (the selection is spent) or when the admin clears it. */
  onDone: () => void;
}

/** What goes live broken: no page at the site's address. */
const withoutEntry = (rows: readonly AdminProjectDto[]) =>
  rows.filter((r) => r.entry_file === null && r.file_count > 0).length;

/** "其中 N 个项目没有首页…", when some are so. */
function NoEntryNote({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <div>
      <Typography.Text type="warning">
        {`其中 ${count} 个项目没有首页（index.html），上线后打开站点地址会显示 404。`}
      </Typography.Text>
    </div>
  );
}

/** Approve, reject or delete several projects at once; each project succeeds or fails on its own. */
export function BatchActionBar({ selected, onDone }: BatchActionBarProps) {
  const { message } = App.useApp();
  const batch = useBatchAction();
  const [askReason, setAskReason] = useState(false);
  // A delete's reason is optional; given, the owners read it in the notice that tells them.
  const [deleteReason, setDeleteReason] = useState('');
  const once = useSingleFlight();

  if (selected.length === 0 && !askReason) return null;

  const run = (action: BatchAction, rows: readonly AdminProjectDto[], comment?: string) =>
    once('batch', async () => {
      try {
        // Each row's newest version as listed: one uploaded since is refused for that project alone.
        const versions =
          action === 'delete'
            ? {}
            : Object.fromEntries(
                rows.flatMap((r) =>
                  typeof r.latest_version === 'number' ? [[String(r.id), r.latest_version]] : [],
                ),
              );
        const result = await batch.mutateAsync({
          projectIds: rows.map((r) => r.id),
          action,
          comment,
          versions,
        });
        const label = REVIEW_ACTION_LABELS[action];
        if (result.failed === 0) {
          message.success(`批量${label}完成：共 ${result.succeeded} 个项目`);
        } else {
          const reasons = [...new Set(result.results.filter((r) => !r.success).map((r) => r.message))];
          message.warning(
            // The reasons after a colon, not in brackets: they hold brackets of their own (当前状态（已通过）…).
            `批量${label}：成功 ${result.succeeded} 个，失败 ${result.failed} 个。${reasons.join('；')}`,
            6,
          );
        }
        setAskReason(false);
        setDeleteReason('');
        onDone();
      } catch (error) {
        message.error(`${messages.review.actionFailed}：${errorMessage(error)}`);
      }
    });

  // The two approvals differ in size whenever both are offered (the second leaves flagged ones out).
  const running = (action: BatchAction, rows = selected) =>
    batch.isPending &&
    batch.variables?.action === action &&
    batch.variables.projectIds.length === rows.length;
  // A batch approval must not wave through what the content check flagged (the row's 通过 rule).
  const risky = selected.filter((r) => isFlagged(r.content_check)).length;
  // What the admin can approve without looking at each: waiting for review, and not flagged.
  const unflagged = selected.filter((r) => r.abilities.approve && !isFlagged(r.content_check));

  // Paging keeps the selection, so it can pass what one batch takes: said before, not refused after.
  const tooMany = selected.length > BATCH_MAX_PROJECTS;

  return (
    <section className="batch-bar" aria-label="批量操作">
      <Typography.Text>
        已选择 <Typography.Text strong>{selected.length}</Typography.Text> 个项目
      </Typography.Text>
      {tooMany && (
        <Typography.Text type="warning" role="status">
          {`一次最多操作 ${BATCH_MAX_PROJECTS} 个项目，请减少选择。`}
        </Typography.Text>
      )}
      <Space wrap>
        {/* Approving puts sites live at once, so it asks first, naming how many (docs/decisions.md). */}
        <Popconfirm
          title="批量通过"
          description={
            <>
              {`确定要通过选中的 ${selected.length} 个项目吗？只有待审核的项目会被通过，通过后立即上线。`}
              {risky > 0 && (
                <div>
                  <Typography.Text type="danger" strong>
                    {`其中 ${risky} 个项目内容检查为中高风险，建议逐个查看后再通过。`}
                  </Typography.Text>
                </div>
              )}
              <NoEntryNote count={withoutEntry(selected)} />
            </>
          }
          okText="确认通过"
          okButtonProps={{ danger: risky > 0 }}
          cancelText="取消"
          onConfirm={() => run('approve', selected)}
        >
          <Button
            size="small"
            type="primary"
            icon={<CheckOutlined aria-hidden />}
            loading={running('approve')}
            disabled={tooMany}
          >
            批量通过
          </Button>
        </Popconfirm>
        {/* With flagged ones in the selection: the rest at once, the flagged left for a look each. */}
        {risky > 0 && unflagged.length > 0 && (
          <Popconfirm
            title="只通过未发现中高风险的项目"
            description={
              <>
                {`确定要通过其中内容检查未发现中高风险的 ${unflagged.length} 个待审核项目吗？通过后立即上线；其余 ${selected.length - unflagged.length} 个不变。`}
                <NoEntryNote count={withoutEntry(unflagged)} />
              </>
            }
            okText="确认通过"
            cancelText="取消"
            onConfirm={() => run('approve', unflagged)}
          >
            <Button
              size="small"
              icon={<CheckOutlined aria-hidden />}
              loading={running('approve', unflagged)}
              disabled={unflagged.length > BATCH_MAX_PROJECTS}
            >
              {`通过未发现中高风险的 ${unflagged.length} 个`}
            </Button>
          </Popconfirm>
        )}
        <Button
          size="small"
          danger
          icon={<CloseOutlined aria-hidden />}
          onClick={() => setAskReason(true)}
          disabled={tooMany}
        >
          批量拒绝
        </Button>
        <Popconfirm
          title="批量删除"
          description={
            <DeleteReason
              text={`确定要删除选中的 ${selected.length} 个项目吗？此操作不可撤销；项目所有者会收到删除通知。`}
              value={deleteReason}
              onChange={setDeleteReason}
            />
          }
          okText="确认删除"
          cancelText="取消"
          okButtonProps={{ danger: true }}
          onConfirm={() => run('delete', selected, deleteReason)}
        >
          <Button
            size="small"
            danger
            type="text"
            icon={<DeleteOutlined aria-hidden />}
            loading={running('delete')}
            disabled={tooMany}
          >
            批量删除
          </Button>
        </Popconfirm>
        <Button size="small" type="link" onClick={onDone}>
          取消选择
        </Button>
      </Space>
      <ReasonModal
        open={askReason}
        action="reject"
        title={`批量拒绝 ${selected.length} 个项目`}
        description="只有待审核的项目会被拒绝；请填写原因，项目所有者会看到它。"
        okText="确认拒绝"
        defaultReason={messages.review.quickRejectComment}
        confirmLoading={running('reject')}
        onSubmit={(reason) => run('reject', selected, reason)}
        onCancel={() => setAskReason(false)}
      />
    </section>
  );
}
