import { type ReviewAction, reasonRequiredMessage } from '@sitehall/contracts';
import { Form, Input, Modal, Typography } from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { useEffect, useRef } from 'react';

export const REASON_MAX = 1000;

interface ReasonModalProps {
  open: boolean;
  /** The decision the reason is for: an empty box says so in its words (reject, takedown). */
  action: ReviewAction;
  title: string;
  /** What the decision does, shown above the box. */
  description?: string;
  okText: string;
  /** The reason the box starts with (quick reject: 需要进一步修改). */
  defaultReason?: string;
  confirmLoading?: boolean;
  onSubmit: (reason: string) => void;
  onCancel: () => void;
}

/** Asks for the reason a reject or takedown needs; the owner sees it. */
export function ReasonModal({
  open,
  action,
  title,
  description,
  okText,
  defaultReason = '',
  confirmLoading,
  onSubmit,
  onCancel,
}: ReasonModalProps) {
  const [form] = Form.useForm<{ reason: string }>();
  const box = useRef<TextAreaRef>(null);

  useEffect(() => {
    if (open) form.setFields([{ name: 'reason', value: defaultReason, errors: [] }]);
  }, [open, defaultReason, form]);

  const submit = async () => {
    try {
      const { reason } = await form.validateFields();
      onSubmit(reason.trim());
    } catch {
      // The form shows what is missing under the box.
    }
  };

  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      cancelText="取消"
      okButtonProps={{ danger: true }}
      confirmLoading={confirmLoading}
      onOk={submit}
      onCancel={onCancel}
      // Rendered ahead (forceRender), the box can't take focus as it mounts: it does once open.
      afterOpenChange={(opened) => {
        if (opened) box.current?.focus({ cursor: 'end' });
      }}
      forceRender
    >
      {description && <Typography.Paragraph type="secondary">{description}</Typography.Paragraph>}
      <Form form={form} layout="vertical" onFinish={submit}>
        <Form.Item
          name="reason"
          label="原因"
          rules={[{ required: true, whitespace: true, message: reasonRequiredMessage(action) }]}
        >
          <Input.TextArea
            ref={box}
            rows={4}
            maxLength={REASON_MAX}
            showCount
            placeholder="请说明原因，项目所有者会看到这条意见"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
