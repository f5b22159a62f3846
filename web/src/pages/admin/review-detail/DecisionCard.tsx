import {
  ACTIONS_REQUIRING_COMMENT,
  messages,
  type ProjectDto,
  REVIEW_ACTION_LABELS,
  type ReviewAction,
  reasonRequiredMessage,
} from '@sitehall/contracts';
import { Alert, App, Button, Card, Form, Input, Select, Typography } from 'antd';
import { useEffect } from 'react';
import { useAdminProjects, useReviewDecision } from '../../../api/admin';
import { toApiError } from '../../../api/client';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';
import { allowedActions, versionSummary } from '../../../components/admin/projectFacts';
import { REASON_MAX } from '../../../components/admin/ReasonModal';
import { approvalWarning } from '../../../components/admin/useProjectActions';
import { LinkButton } from '../../../components/LinkButton';
import { useSingleFlight } from '../../../hooks/useSingleFlight';
import { applyFieldErrors } from '../../../lib/form';
import { DECISION_ID } from './DecisionBar';

const m = messages.review;

const OPTION_LABELS: Record<ReviewAction, string> = {
  approve: REVIEW_ACTION_LABELS.approve,
  reject: REVIEW_ACTION_LABELS.reject,
  publish: `${REVIEW_ACTION_LABELS.publish}（在展厅标记并优先展示）`,
  unpublish: REVIEW_ACTION_LABELS.unpublish,
  takedown: REVIEW_ACTION_LABELS.takedown,
};

const EFFECTS: Record<ReviewAction, string> = {
  approve: '通过后此版本立即上线，并出现在展厅中（项目公开时）。',
  reject: '拒绝后所有者会看到原因；已上线的旧版本继续提供访问。',
  publish: '设为精选后项目在展厅中标记为精选并优先展示；站点本来就已发布。',
  unpublish: '取消精选后项目仍然在线，只是不再标记为精选。',
  takedown: '下线后站点立即无法访问，并从展厅移除；所有者需上传新版本重新审核。',
};

interface DecisionValues {
  decision?: ReviewAction;
  comment?: string;
}

/** The review decision (docs/product.md §5): a decision must be chosen, and rejecting or taking down needs a reason. */
export function DecisionCard({ project }: { project: ProjectDto }) {
  const { message, modal } = App.useApp();
  const [form] = Form.useForm<DecisionValues>();
  const decision = useReviewDecision();
  const chosen = Form.useWatch('decision', form);
  const actions = allowedActions(project);
  const needsReason = chosen !== undefined && ACTIONS_REQUIRING_COMMENT.includes(chosen);
  // The project changed under the form (another reviewer decided, a 409 read it again): a chosen
  // action it no longer allows is cleared; the comment stays.
  const offered = actions.join(',');
  useEffect(() => {
    if (chosen !== undefined && !offered.split(',').includes(chosen))
      form.setFieldValue('decision', undefined);
  }, [chosen, offered, form]);

  const once = useSingleFlight();

  const decide = (values: DecisionValues) =>
    once('decide', async () => {
      if (!values.decision) return;
      try {
        // The version on this page: a newer one uploaded meanwhile is refused, not decided unseen.
        await decision.mutateAsync({
          id: project.id,
          action: values.decision,
          comment: values.comment,
          version:
            values.decision === 'approve' || values.decision === 'reject'
              ? project.latest_version
              : undefined,
        });
        message.success(m.reviewDone);
        form.resetFields();
      } catch (error) {
        const apiError = toApiError(error);
        applyFieldErrors(form, apiError, ['comment']);
        message.error(`${m.reviewFailed}：${apiError.message}`);
      }
    });

  // Approving a version the site address can't open (no index.html) asks first, as the lists' 通过 does.
  const submit = (values: DecisionValues) => {
    const warning = values.decision === 'approve' ? approvalWarning(project) : null;
    if (!warning) return decide(values);
    modal.confirm({
      ...warning,
      cancelText: '取消',
      okButtonProps: { danger: true },
      onOk: () => decide(values),
    });
  };

  return (
    <Card title="审核决定" id={DECISION_ID} className="review-detail__card review-decision">
      <div className="review-decision__current">
        <span>当前状态</span>
        <AdminStatusTag status={project.status} />
        <Typography.Text type="secondary">{versionSummary(project)}</Typography.Text>
      </div>
      {actions.length === 0 ? (
        <Alert
          type="info"
          showIcon
          title="当前没有可执行的审核操作"
          description={
            project.status === 'taken_down'
              ? '项目已下线，所有者上传新版本后会重新进入待审核。'
              : '项目已被拒绝且未上线，所有者上传新版本后会重新进入待审核。'
          }
        />
      ) : (
        <Form<DecisionValues> form={form} layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item
            name="decision"
            label="审核结果"
            rules={[{ required: true, message: m.statusRequired }]}
            extra={chosen ? EFFECTS[chosen] : undefined}
          >
            <Select<ReviewAction>
              placeholder="请选择审核结果"
              options={actions.map((action) => ({ value: action, label: OPTION_LABELS[action] }))}
            />
          </Form.Item>
          {chosen === 'approve' && project.entry_file === null && project.file_count > 0 && (
            <Alert type="error" showIcon title={m.approveNoEntry} className="review-decision__warning" />
          )}
          <Form.Item
            name="comment"
            label={needsReason ? '原因（必填）' : '审核意见（选填）'}
            dependencies={['decision']}
            rules={[
              ({ getFieldValue }) => ({
                validator: async (_rule, value: string | undefined) => {
                  const action = getFieldValue('decision') as ReviewAction | undefined;
                  if (action && ACTIONS_REQUIRING_COMMENT.includes(action) && !value?.trim()) {
                    throw new Error(reasonRequiredMessage(action));
                  }
                },
              }),
            ]}
          >
            <Input.TextArea
              rows={4}
              maxLength={REASON_MAX}
              showCount
              placeholder={needsReason ? '请说明原因，项目所有者会看到这条意见' : '可以给所有者留下意见'}
            />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={decision.isPending}>
            提交审核
          </Button>
        </Form>
      )}
      {project.status !== 'pending' && <NextPending current={project.id} />}
    </Card>
  );
}

/**
 * Once this project is decided, the way on through the queue: the upload that has waited longest
 * (the review list's default order), or word that none is left. An outside review reviewing a
 * class of 30 went back to the list after every decision.
 */
function NextPending({ current }: { current: number }) {
  const next = useAdminProjects({ status: 'pending', sort: 'oldest', page: 1, page_size: 2 });
  if (!next.data) return null;
  const project = next.data.projects.find((p) => p.id !== current);
  return (
    <div className="review-decision__next">
      {project ? (
        <LinkButton to={`/admin/reviews/${project.id}`} type="default" block>
          下一个待审核：{project.name}
        </LinkButton>
      ) : (
        <Typography.Text type="secondary">没有其他待审核的项目了。</Typography.Text>
      )}
    </div>
  );
}
