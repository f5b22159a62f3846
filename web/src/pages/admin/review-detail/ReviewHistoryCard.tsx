import type { ReviewCommentDto } from '@sitehall/contracts';
import { Card, Empty, Tag, Timeline, Typography } from 'antd';
import { formatDateTime } from '../../../lib/format';
import { reviewActionColor, reviewActionLabel } from '../../../lib/project-labels';

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
            color: reviewActionColor(c.action),
            content: (
              <div className="review-history__item">
                <div className="review-history__head">
                  <Tag color={reviewActionColor(c.action)}>{reviewActionLabel(c.action)}</Tag>
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
