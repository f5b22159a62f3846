/**
 * How a project is seen before and after review (docs/product.md §4 "Preview"): a live project shows its
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
import { format, messages, type ProjectDto } from '@sitehall/contracts';
import { App, Button, type ButtonProps, Tag, Tooltip, Typography } from 'antd';
import type { ReactNode } from 'react';
import { toApiError } from '../api/client';
import { usePreviewLink } from '../api/projects';
import { useCopyFeedback } from '../hooks/useCopyFeedback';
import { useCountdown } from '../hooks/useCountdown';
import { useSiteAddress } from '../hooks/useSiteAddress';

type PreviewProject = Pick<ProjectDto, 'id' | 'status' | 'access_url' | 'live_version' | 'latest_version'> &
  Partial<Pick<ProjectDto, 'rejectionReason' | 'takedownReason'>>;

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

/** A button that opens an address in a new tab. */
function OpenButton({ href, icon, children, ...button }: { href: string; icon: ReactNode } & ButtonProps) {
  return (
    <Button {...button} icon={icon} href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </Button>
  );
}

/** The full layout of an address: a label, the link, an open button, a copy button and more. */
function AddressBlock({
  label,
  href,
  open,
  children,
}: {
  label: ReactNode;
  href: string;
  /** The primary button that opens the address. */
  open: { icon: ReactNode; text: string };
  /** Further buttons after the copy button. */
  children?: ReactNode;
}) {
  return (
    <div className="preview-panel__block">
      <div className="preview-panel__label">{label}</div>
      <Typography.Link href={href} target="_blank" rel="noopener noreferrer" className="preview-panel__link">
        {href}
      </Typography.Link>
      <div className="preview-panel__buttons">
        <OpenButton type="primary" href={href} icon={open.icon}>
          {open.text}
        </OpenButton>
        <CopyButton text={href} />
        {children}
      </div>
    </div>
  );
}

/** The published address of a live project. */
function LiveLink({ url, compact }: { url: string; compact: boolean }) {
  const href = useSiteAddress()(url);
  if (compact) {
    return (
      <div className="preview-panel__row">
        <OpenButton type="primary" ghost size="small" href={href} icon={<GlobalOutlined aria-hidden />}>
          访问
        </OpenButton>
        <Typography.Text type="secondary" className="preview-panel__url" ellipsis title={href}>
          {href}
        </Typography.Text>
        <CopyButton text={href} compact />
      </div>
    );
  }
  return (
    <AddressBlock
      label={
        <>
          <GlobalOutlined aria-hidden /> 已发布地址
        </>
      }
      href={href}
      open={{ icon: <LinkOutlined aria-hidden />, text: '访问站点' }}
    />
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
  const { message, modal } = App.useApp();
  const { preview, generate, generating, clear } = usePreviewLink(projectId);
  const countdown = useCountdown(preview?.expires_at, clear);
  // Completed for this visitor as site addresses are: on the default install reached by localhost,
  // a preview's own host (pv-{token}.localhost on the sites port).
  const siteAddress = useSiteAddress();

  const make = async () => {
    try {
      await generate();
    } catch (error) {
      message.error(toApiError(error).serverMessage ?? messages.project.previewFailed);
    }
  };
  // A new link ends the one already shared (the server revokes it): said before it happens.
  const remake = () =>
    modal.confirm({
      title: '重新生成预览链接？',
      content: '新链接生成后，当前的预览链接立即失效，已经分享出去的旧链接将无法再打开。',
      okText: '重新生成',
      cancelText: '取消',
      onOk: async () => {
        clear();
        await make();
      },
    });

  if (!preview || countdown.expired) {
    return (
      <div className={compact ? 'preview-panel__row' : 'preview-panel__block'}>
        {!compact && (
          <>
            <div className="preview-panel__label">
              <EyeOutlined aria-hidden /> {title}
            </div>
            <Typography.Paragraph type="secondary" className="preview-panel__note">
              生成一个临时链接，在审核通过前查看站点的实际效果。链接到期后自动失效；再次生成会使之前的链接失效。
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

  const href = siteAddress(preview.preview_url);
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
        <OpenButton size="small" href={href} icon={<EyeOutlined aria-hidden />}>
          打开预览
        </OpenButton>
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
    <AddressBlock
      label={
        <>
          <EyeOutlined aria-hidden /> {title}
          <span className="preview-panel__spacer" />
          <span className="preview-panel__expires">剩余 {timer}</span>
        </>
      }
      href={href}
      open={{ icon: <EyeOutlined aria-hidden />, text: '打开预览' }}
    >
      <Button icon={<ReloadOutlined aria-hidden />} loading={generating} onClick={remake}>
        {generating ? '生成中...' : '重新生成'}
      </Button>
    </AddressBlock>
  );
}

interface PreviewPanelProps {
  project: PreviewProject;
  /** One line for a project card; the full panel on the detail page. */
  compact?: boolean;
}

export function PreviewPanel({ project, compact = false }: PreviewPanelProps) {
  // The newest version was rejected or the site taken down: the server makes no link for it.
  const rejected = project.status === 'rejected' || project.status === 'taken_down';
  if (!project.access_url && rejected) {
    // Which of the two, and on a card (where nothing else says it) why: 我的项目 said only
    // 未通过审核或已被下线, the reason one click away.
    const takenDown = project.status === 'taken_down';
    const reason = takenDown ? project.takedownReason : project.rejectionReason;
    return (
      <div className="preview-panel">
        <Typography.Text type="secondary" className={compact ? undefined : 'preview-panel__note'}>
          {takenDown ? messages.project.previewTakenDown : messages.project.previewRejectedVersion}
        </Typography.Text>
        {compact && (
          <Typography.Paragraph
            type="danger"
            className="preview-panel__reason"
            ellipsis={{ rows: 2, tooltip: reason || undefined }}
          >
            {format(messages.project.decisionReason, { reason: reason || messages.project.noReasonGiven })}
          </Typography.Paragraph>
        )}
      </div>
    );
  }
  if (!project.access_url) {
    return (
      <div className="preview-panel">
        <TemporaryPreview projectId={project.id} compact={compact} title="临时预览" />
      </div>
    );
  }
  // While live, a newer version waiting for review can be previewed before it replaces the live one
  // (Only while it waits for review: after a rollback the newer version is approved, not new.)
  const newerVersion =
    !compact &&
    project.status === 'pending' &&
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
