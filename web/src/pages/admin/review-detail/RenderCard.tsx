import { format, messages, type RenderState, type RenderStateDto } from '@sitehall/contracts';
import { Alert, Card, Empty, Tag, Typography } from 'antd';
import { formatDateTime } from '../../../lib/format';

const m = messages.render;

const STATE_COLORS: Record<RenderState, string> = {
  queued: 'default',
  running: 'processing',
  done: 'success',
  failed: 'error',
  none: 'default',
};

/**
 * Where each render stands (docs/render.md): the newest version's and the live one's, with the
 * reason of a failed attempt. A failed render is said, never left to a missing picture.
 */
export function RenderCard({ renders }: { renders: RenderStateDto[] }) {
  const failed = renders.some((r) => r.state === 'failed');
  return (
    <Card title={m.cardTitle} className="review-detail__card">
      {renders.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={m.noRenders} />
      ) : (
        <ul className="render-states" aria-label={m.cardTitle}>
          {renders.map((r) => (
            <li key={r.version} className="render-states__item">
              <div className="render-states__head">
                <span>{format(m.versionLabel, { version: r.version })}</span>
                {r.newest && <Tag>{m.newestTag}</Tag>}
                {r.live && <Tag color="green">{m.liveTag}</Tag>}
                <Tag color={STATE_COLORS[r.state]}>{m.states[r.state]}</Tag>
              </div>
              {r.attempts > 0 && (
                <Typography.Text type="secondary">
                  {format(m.attempts, { n: r.attempts })}
                  {r.updated_at && ` · ${formatDateTime(r.updated_at)}`}
                </Typography.Text>
              )}
              {r.error && (
                <Alert type={r.state === 'failed' ? 'error' : 'warning'} showIcon title={r.error} />
              )}
            </li>
          ))}
        </ul>
      )}
      {failed && (
        <Typography.Paragraph type="secondary" className="render-states__hint">
          {m.failedHint}
        </Typography.Paragraph>
      )}
    </Card>
  );
}
