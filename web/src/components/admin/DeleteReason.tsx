import { Input } from 'antd';
import { REASON_MAX } from './ReasonModal';
import './admin.css';

/**
 * A delete confirmation's words with the optional 删除原因 its owners read in their notice
 * (docs/notifications.md): the batch's 批量删除 and a single project's 删除 alike.
 */
export function DeleteReason({
  text,
  value,
  onChange,
}: {
  text: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="batch-bar__delete">
      {text}
      <Input.TextArea
        aria-label="删除原因"
        placeholder="删除原因（选填，所有者会在通知中看到）"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        maxLength={REASON_MAX}
        autoSize={{ minRows: 2, maxRows: 4 }}
      />
    </div>
  );
}
