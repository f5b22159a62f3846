/**
 * How a project is seen before and after review (spec §4 "Preview"): a live project shows its
 * published address; otherwise a temporary preview link can be made, which counts down to its
 * expiry, is reused while it lasts and can be made again (the server then revokes the old one).
 */
import './project-ui.css';
import {
  CheckOutlined,
  ClockCircleOutlined,
  CopyOutlined,
  EyeOutlined,
  GlobalOutlined,
  LinkOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { messages, type ProjectDto } from '@sitehall/contracts';
import { App, Button, Tag, Tooltip, Typography } from 'antd';
import { toApiError } from '../api/client';
import { usePreviewLink } from '../api/projects';
import { useCopyFeedback } from '../hooks/useCopyFeedback';
import { useCountdown } from '../hooks/useCountdown';

type PreviewProject = Pick<ProjectDto, 'id' | 'access_url' | 'live_version' | 'latest_version'>;

/** Server addresses are paths on this host unless a separate sites host is configured. */
export function absoluteUrl(url: string): string {
  return new URL(url, window.location.origin).href;
}

function CopyButton({ text, compact }: { text: string; compact?: boolean }) {
  const { copied, copy } = useCopyFeedback(messages.project.addressCopied);
  const label = copied ? '已复制' : '复制地址';
  const icon = copied ? <CheckOutlined aria-hidden /> : <CopyOutlined aria-hidden />;
  if (compact) {
    return (
      <Tooltip title={label}>
        <Button size="small" type="text" icon={icon} aria-label={label} onClick={() => copy(text)} />
      </Tooltip>
    );
  }
  return (
    <Button icon={icon} onClick={() => copy(text)}>
      {label}
    </Button>
  );
}

/** The published address of a live project. */
function LiveLink({ url, compact }: { url: string; compact: boolean }) {
  const href = absoluteUrl(url);
  if (compact) {
    return (
      <div className="preview-panel__row">
        <Button
          type="primary"
          ghost
          size="small"
          icon={<GlobalOutlined aria-hidden />}
          href={href}
          target="_blank"
          rel="noopener noreferrer"
        >
          访问
        </Button>
        <Typography.Text type="secondary" className="preview-panel__url" ellipsis title={href}>
          {href}
        </Typography.Text>
        <CopyButton text={href} compact />
      </div>
    );
  }
  return (
    <div className="preview-panel__block">
      <div className="preview-panel__label">
        <GlobalOutlined aria-hidden /> 已发布地址
      </div>
      <Typography.Link href={href} target="_blank" rel="noopener noreferrer" className="preview-panel__link">
        {href}
      </Typography.Link>
      <div className="preview-panel__buttons">
        <Button
          type="primary"
          icon={<LinkOutlined aria-hidden />}
          href={href}
          target="_blank"
          rel="noopener noreferrer"
        >
          访问站点
        </Button>
        <CopyButton text={href} />
      </div>
    </div>
  );
}

/** Making, showing and renewing a temporary preview link. */
function TemporaryPreview({
  projectId,
  compact,
  title,
}: {
  projectId: number;
  compact: boolean;
  title: string;
}) {
  const { message } = App.useApp();
  const { preview, generate, generating, clear } = usePreviewLink(projectId);
  const countdown = useCountdown(preview?.expires_at, clear);

  const make = async () => {
    try {
      await generate();
    } catch (error) {
      message.error(toApiError(error).serverMessage ?? messages.project.previewFailed);
    }
  };
  const remake = async () => {
    clear();
    await make();
  };

  if (!preview || countdown.expired) {
    return (
      <div className={compact ? 'preview-panel__row' : 'preview-panel__block'}>
        {!compact && (
          <>
            <div className="preview-panel__label">
              <EyeOutlined aria-hidden /> {title}
            </div>
            <Typography.Paragraph type="secondary" className="preview-panel__note">
              生成一个临时链接，在审核通过前查看站点的实际效果。链接到期后自动失效。
            </Typography.Paragraph>
          </>
        )}
        <Button
          type={compact ? 'default' : 'primary'}
          size={compact ? 'small' : 'middle'}
          icon={<EyeOutlined aria-hidden />}
          loading={generating}
          onClick={make}
        >
          {generating ? '生成中...' : '生成预览'}
        </Button>
        {compact && <Typography.Text type="secondary">审核通过前可先预览效果</Typography.Text>}
      </div>
    );
  }

  const href = absoluteUrl(preview.preview_url);
  const timer = (
    <Tag icon={<ClockCircleOutlined aria-hidden />} color="processing" className="preview-panel__countdown">
      <span role="timer" aria-label="预览链接剩余有效时间">
        {countdown.label}
      </span>
    </Tag>
  );

  if (compact) {
    return (
      <div className="preview-panel__row">
        <Button
          size="small"
          icon={<EyeOutlined aria-hidden />}
          href={href}
          target="_blank"
          rel="noopener noreferrer"
        >
          打开预览
        </Button>
        {timer}
        <span className="preview-panel__spacer" />
        <CopyButton text={href} compact />
        <Tooltip title="重新生成">
          <Button
            size="small"
            type="text"
            icon={<ReloadOutlined aria-hidden />}
            aria-label="重新生成"
            loading={generating}
            onClick={remake}
          />
        </Tooltip>
      </div>
    );
  }

  return (
    <div className="preview-panel__block">
      <div className="preview-panel__label">
        <EyeOutlined aria-hidden /> {title}
        <span className="preview-panel__spacer" />
        <span className="preview-panel__expires">剩余 {timer}</span>
      </div>
      <Typography.Link href={href} target="_blank" rel="noopener noreferrer" className="preview-panel__link">
        {href}
      </Typography.Link>
      <div className="preview-panel__buttons">
        <Button
          type="primary"
          icon={<EyeOutlined aria-hidden />}
          href={href}
          target="_blank"
          rel="noopener noreferrer"
        >
          打开预览
        </Button>
        <CopyButton text={href} />
        <Button icon={<ReloadOutlined aria-hidden />} loading={generating} onClick={remake}>
          {generating ? '生成中...' : '重新生成'}
        </Button>
      </div>
    </div>
  );
}

interface PreviewPanelProps {
  project: PreviewProject;
  /** One line for a project card; the full panel on the detail page. */
  compact?: boolean;
}

export function PreviewPanel({ project, compact = false }: PreviewPanelProps) {
  if (!project.access_url) {
    return (
      <div className="preview-panel">
        <TemporaryPreview projectId={project.id} compact={compact} title="临时预览" />
      </div>
    );
  }
  // While live, a newer version waiting for review can be previewed before it replaces the live one.
  const newerVersion =
    !compact &&
    project.latest_version !== null &&
    project.live_version !== null &&
    project.latest_version > project.live_version;
  return (
    <div className="preview-panel">
      <LiveLink url={project.access_url} compact={compact} />
      {newerVersion && (
        <TemporaryPreview
          projectId={project.id}
          compact={false}
          title={`预览新版本 v${project.latest_version}`}
        />
      )}
    </div>
  );
}
