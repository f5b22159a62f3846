import { REVIEW_ACTION_LABELS, type ReviewCommentDto } from '@sitehall/contracts';
import { Card, Empty, Tag, Timeline, Typography } from 'antd';
import { formatDateTime } from '../../../lib/format';

const ACTION_COLORS: Record<string, string> = {
  approve: 'green',
  reject: 'red',
  publish: 'blue',
  unpublish: 'gray',
  takedown: 'red',
  rollback: 'purple',
};

/** 通过, 拒绝, 发布, 取消精选, 下线, 回滚. */
export function reviewActionLabel(action: string): string {
  if (action === 'rollback') return '回滚版本';
  return (REVIEW_ACTION_LABELS as Record<string, string>)[action] ?? action;
}

/** Every decision on the project, newest first, with its reviewer and comment. */
export function ReviewHistoryCard({ comments }: { comments: ReviewCommentDto[] }) {
  return (
    <Card title="审核记录" className="review-detail__card">
      {comments.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无审核记录" />
      ) : (
        <Timeline
          className="review-history"
          items={comments.map((c) => ({
            key: c.id,
            color: ACTION_COLORS[c.action] ?? 'gray',
            content: (
              <div className="review-history__item">
                <div className="review-history__head">
                  <Tag color={ACTION_COLORS[c.action]}>{reviewActionLabel(c.action)}</Tag>
                  {c.deployment_version !== null && (
                    <span className="review-history__version">v{c.deployment_version}</span>
                  )}
                  <span className="review-history__who">{c.reviewer ?? '已删除的用户'}</span>
                </div>
                <Typography.Text type="secondary" className="review-history__time">
                  {formatDateTime(c.created_at)}
                </Typography.Text>
                {c.comment && <div className="review-history__comment">{c.comment}</div>}
              </div>
            ),
          }))}
        />
      )}
    </Card>
  );
}
