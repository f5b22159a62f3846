import { ReloadOutlined } from '@ant-design/icons';
import { Button, Result, type ResultProps } from 'antd';
import { errorMessage } from '../../api/client';

/** What an admin screen shows when its data could not be loaded at all: why, and a way to try again. */
export function LoadFailed({
  title,
  error,
  onRetry,
  status = 'error',
}: {
  title: string;
  error: unknown;
  onRetry: () => void;
  status?: ResultProps['status'];
}) {
  return (
    <Result
      status={status}
      title={title}
      subTitle={errorMessage(error)}
      extra={
        <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={onRetry}>
          重新加载
        </Button>
      }
    />
  );
}
