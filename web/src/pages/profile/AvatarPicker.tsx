/**
 * The avatar field: a picture chosen from the computer, kept as a data: URL in the account
 * (docs/decisions/accounts.md "Avatars": never an address, so no viewer's browser asks another host). The
 * form's rule (contracts `avatar`) says what is wrong with a file: its type or its size.
 */
import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useRef } from 'react';
import { UserAvatar } from '../../components/UserAvatar';

const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp';

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export function AvatarPicker({
  username,
  value,
  onChange,
  disabled,
}: {
  username: string;
  value?: string;
  onChange?: (value: string) => void;
  disabled?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const choose = async (file: File | undefined) => {
    if (!file) return;
    onChange?.(await readAsDataUrl(file).catch(() => ''));
    if (input.current) input.current.value = '';
  };
  return (
    <Space size="middle" align="center">
      <UserAvatar user={{ username, avatar: value || null }} size={48} />
      <input
        ref={input}
        type="file"
        accept={IMAGE_TYPES}
        // Inline, not the hidden attribute alone: antd's form styles show every file input
        // (input[type='file'] { display: block }), which drew the browser's own English picker.
        hidden
        style={{ display: 'none' }}
        aria-label="选择头像图片"
        data-testid="avatar-file"
        onChange={(e) => void choose(e.target.files?.[0])}
      />
      <Button
        icon={<UploadOutlined aria-hidden />}
        onClick={() => input.current?.click()}
        disabled={disabled}
      >
        选择图片
      </Button>
      {value ? (
        <Button icon={<DeleteOutlined aria-hidden />} onClick={() => onChange?.('')} disabled={disabled}>
          移除头像
        </Button>
      ) : null}
    </Space>
  );
}
