import { type AdminProjectDto, REVIEW_ACTION_LABELS, type ReviewAction } from '@sitehall/contracts';
import { Button, type ButtonProps, Space } from 'antd';
import { allowedActions } from './projectFacts';
import type { ProjectActions } from './useProjectActions';

const LOOKS: Record<ReviewAction, ButtonProps> = {
  approve: { type: 'primary' },
  reject: { danger: true },
  publish: { type: 'primary', ghost: true },
  unpublish: {},
  takedown: { danger: true, type: 'text' },
};

interface ProjectActionButtonsProps {
  project: Pick<AdminProjectDto, 'id' | 'name' | 'abilities'> &
    Partial<Pick<AdminProjectDto, 'content_check'>>;
  actions: ProjectActions;
  /** Only these actions, when allowed (the dashboard offers approve and reject only). */
  only?: readonly ReviewAction[];
}

/** The quick review buttons the server allows now (abilities): 通过 / 拒绝, 设为精选, 取消精选, 下线. */
export function ProjectActionButtons({ project, actions, only }: ProjectActionButtonsProps) {
  const allowed = allowedActions(project).filter((action) => !only || only.includes(action));
  if (allowed.length === 0) return null;
  return (
    <Space size={6} wrap>
      {allowed.map((action) => (
        <Button
          key={action}
          size="small"
          {...LOOKS[action]}
          loading={actions.busy(project.id, action)}
          onClick={() => actions.start(project, action)}
          aria-label={`${REVIEW_ACTION_LABELS[action]} ${project.name}`}
        >
          {REVIEW_ACTION_LABELS[action]}
        </Button>
      ))}
    </Space>
  );
}
