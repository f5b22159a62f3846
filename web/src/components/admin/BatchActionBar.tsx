import { CheckOutlined, CloseOutlined, DeleteOutlined } from '@ant-design/icons';
import { type AdminProjectDto, type BatchAction, messages, REVIEW_ACTION_LABELS } from '@sitehall/contracts';
import { App, Button, Popconfirm, Space, Typography } from 'antd';
import { useState } from 'react';
import { useBatchAction } from '../../api/admin';
import { errorMessage } from '../../api/client';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { ReasonModal } from './ReasonModal';
import './admin.css';

interface BatchActionBarProps {
  /** Ids of the selected projects. */
  selected: number[];
  /** The rows on screen, to say how many selected ones the content check found risky. */
  rows?: readonly AdminProjectDto[];
  /** Called after a batch ran (the selection is spent) or when the admin clears it. */
  onDone: () => void;
}

/** Approve, reject or delete several projects at once; each project succeeds or fails on its own. */
export function BatchActionBar({ selected, rows = [], onDone }: BatchActionBarProps) {
  const { message } = App.useApp();
  const batch = useBatchAction();
  const [askReason, setAskReason] = useState(false);
  const once = useSingleFlight();

  if (selected.length === 0 && !askReason) return null;

  const run = (action: BatchAction, comment?: string) =>
    once('batch', async () => {
      try {
        const result = await batch.mutateAsync({ projectIds: selected, action, comment });
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
        onDone();
      } catch (error) {
        message.error(`${messages.review.actionFailed}：${errorMessage(error)}`);
      }
    });

  const running = (action: BatchAction) => batch.isPending && batch.variables?.action === action;
  // A batch approval must not wave through what the content check flagged (high or medium).
  const chosen = new Set(selected);
  const risky = rows.filter(
    (r) => chosen.has(r.id) && (r.content_check?.level === 'high' || r.content_check?.level === 'medium'),
  ).length;
  // What would go live broken: no page at the site's address.
  const noEntry = rows.filter((r) => chosen.has(r.id) && r.entry_file === null && r.file_count > 0).length;

  return (
    <section className="batch-bar" aria-label="批量操作">
      <Typography.Text>
        已选择 <Typography.Text strong>{selected.length}</Typography.Text> 个项目
      </Typography.Text>
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
              {noEntry > 0 && (
                <div>
                  <Typography.Text type="warning">
                    {`其中 ${noEntry} 个项目没有首页（index.html），上线后打开站点地址会显示 404。`}
                  </Typography.Text>
                </div>
              )}
            </>
          }
          okText="确认通过"
          okButtonProps={{ danger: risky > 0 }}
          cancelText="取消"
          onConfirm={() => run('approve')}
        >
          <Button
            size="small"
            type="primary"
            icon={<CheckOutlined aria-hidden />}
            loading={running('approve')}
          >
            批量通过
          </Button>
        </Popconfirm>
        <Button size="small" danger icon={<CloseOutlined aria-hidden />} onClick={() => setAskReason(true)}>
          批量拒绝
        </Button>
        <Popconfirm
          title="批量删除"
          description={`确定要删除选中的 ${selected.length} 个项目吗？此操作不可撤销。`}
          okText="确认删除"
          cancelText="取消"
          okButtonProps={{ danger: true }}
          onConfirm={() => run('delete')}
        >
          <Button
            size="small"
            danger
            type="text"
            icon={<DeleteOutlined aria-hidden />}
            loading={running('delete')}
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
        onSubmit={(reason) => run('reject', reason)}
        onCancel={() => setAskReason(false)}
      />
    </section>
  );
}
