/**
 * The quick review actions of the admin lists (dashboard, review list, projects): run a decision,
 * ask for a reason first when it needs one, and report the outcome with antd messages.
 */
import {
  ACTIONS_REQUIRING_COMMENT,
  type ContentCheckSummary,
  messages,
  type ProjectStatus,
  type ReviewAction,
} from '@sitehall/contracts';
import { App } from 'antd';
import { type ReactNode, useState } from 'react';
import { useReviewDecision } from '../../api/admin';
import { errorMessage } from '../../api/client';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { isFlagged } from './projectFacts';
import { ReasonModal } from './ReasonModal';

const m = messages.review;

export const ACTION_DONE_MESSAGES: Record<ReviewAction, string> = {
  approve: m.approved,
  reject: m.rejected,
  publish: m.published,
  unpublish: m.unpublished,
  takedown: m.takenDown,
};

interface ProjectRef {
  id: number;
  name: string;
  /** The newest version's content check, where the list has it: a risky one is approved only after a warning. */
  content_check?: ContentCheckSummary | null;
  /** The newest version's entry page and file count: a version with files but no page asks first. */
  entry_file?: string | null;
  file_count?: number;
  /** The newest version as the list shows it: decided only while it still is the newest. */
  latest_version?: number | null;
}

/** A version whose site address would open the platform's 404 (no index.html, nor one page alone at the root). */
const hasNoEntry = (project: ProjectRef) =>
  project.entry_file === null && project.file_count !== undefined && project.file_count > 0;

/**
 * Approving puts the site live at once, one click beside 拒绝: a version the content check rated
 * medium or high (an outside review put a casino redirect live so), or one without a page at its
 * address (one went live as a 404 card in the showcase), asks first, saying why, as 批量通过 does.
 * The lists' 通过 and the review detail's 提交审核 both ask it.
 */
export function approvalWarning(project: ProjectRef) {
  const check = project.content_check;
  const risky = isFlagged(check);
  const noEntry = hasNoEntry(project);
  if (!risky && !noEntry) return null;
  const reasons = [
    ...(risky && check ? [`内容检查为${check.level === 'high' ? '高风险' : '中风险'}：${check.reason}`] : []),
    ...(noEntry ? [m.approveNoEntry] : []),
  ];
  return {
    title: `通过「${project.name}」？`,
    content: `${reasons.join(' ')} 通过后站点立即上线并进入展厅，建议先打开详情查看。`,
    okText: '仍然通过',
  };
}

interface Prompt {
  project: ProjectRef;
  action: ReviewAction;
}

const PROMPTS: Partial<
  Record<ReviewAction, { title: string; okText: string; description: string; reason: string }>
> = {
  reject: {
    title: '拒绝项目',
    okText: '确认拒绝',
    description: '请填写拒绝原因，项目所有者会在项目详情中看到它。',
    reason: m.quickRejectComment,
  },
  takedown: {
    title: '下线项目',
    okText: '确认下线',
    description: '下线后站点将立即无法访问，并从展厅移除。请填写原因，项目所有者会看到它。',
    reason: '',
  },
};

/** Actions without a reason that still ask first: featuring changes what every visitor sees first. */
const CONFIRMS: Partial<
  Record<ReviewAction, { title: (name: string) => string; content: string; okText: string }>
> = {
  publish: {
    title: (name) => `将「${name}」设为精选？`,
    content:
      '精选项目在展厅中带有精选标记并优先展示。站点本来就已发布，设为精选不改变它能否访问；之后可以取消精选。',
    okText: '设为精选',
  },
};

export interface ProjectActions {
  /** Runs the action, asking for a reason first when the action needs one. */
  start: (project: ProjectRef, action: ReviewAction) => void;
  /** True while this project's action is on its way. */
  busy: (id: number, action: ReviewAction) => boolean;
  /** The reason dialog; render it once on the page. */
  dialog: ReactNode;
  /** The projects decided here, with the status each now has (useKeptRows keeps them in view). */
  decided: ReadonlyMap<number, ProjectStatus>;
}

export function useProjectActions(): ProjectActions {
  const { message, modal } = App.useApp();
  const decision = useReviewDecision();
  const [prompt, setPrompt] = useState<Prompt | null>(null);
  const [decided, setDecided] = useState<ReadonlyMap<number, ProjectStatus>>(new Map());

  const once = useSingleFlight();

  // One decision at a time per project: a double-click decided it twice (the second failed).
  const run = (project: ProjectRef, action: ReviewAction, comment?: string) =>
    once(String(project.id), async () => {
      try {
        // Approving or rejecting names the version the list showed (a newer upload is refused).
        const version = action === 'approve' || action === 'reject' ? project.latest_version : undefined;
        // The status the server says the project has now: 取消精选 leaves a waiting or refused newer
        // upload's status as it was (docs/decisions/review.md "Transition table").
        const { project: after } = await decision.mutateAsync({ id: project.id, action, comment, version });
        setDecided((before) => new Map(before).set(project.id, after.status));
        message.success(ACTION_DONE_MESSAGES[action]);
        setPrompt(null);
      } catch (error) {
        message.error(`${m.actionFailed}：${errorMessage(error)}`);
      }
    });

  const start = (project: ProjectRef, action: ReviewAction) => {
    const confirm = CONFIRMS[action];
    const risky = action === 'approve' ? approvalWarning(project) : null;
    if (ACTIONS_REQUIRING_COMMENT.includes(action)) setPrompt({ project, action });
    else if (risky)
      modal.confirm({
        ...risky,
        cancelText: '取消',
        okButtonProps: { danger: true },
        onOk: () => run(project, action),
      });
    else if (confirm)
      modal.confirm({
        title: confirm.title(project.name),
        content: confirm.content,
        okText: confirm.okText,
        cancelText: '取消',
        onOk: () => run(project, action),
      });
    else void run(project, action);
  };

  const busy = (id: number, action: ReviewAction) =>
    decision.isPending && decision.variables?.id === id && decision.variables.action === action;

  const texts = prompt ? PROMPTS[prompt.action] : undefined;
  const dialog = (
    <ReasonModal
      open={prompt !== null}
      action={prompt?.action ?? 'reject'}
      title={texts ? `${texts.title}：${prompt?.project.name}` : ''}
      description={texts?.description}
      okText={texts?.okText ?? '确定'}
      defaultReason={texts?.reason}
      confirmLoading={decision.isPending}
      onSubmit={(reason) => prompt && run(prompt.project, prompt.action, reason)}
      onCancel={() => setPrompt(null)}
    />
  );

  return { start, busy, dialog, decided };
}
