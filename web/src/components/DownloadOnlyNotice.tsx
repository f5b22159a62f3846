/**
 * Files of a type that is not web content are kept as downloads only (docs/decisions/uploads.md
 * "File types"): the uploader and the reviewer see how many and which.
 */
import { format, formatNameList, messages, type ProjectFileDto } from '@sitehall/contracts';
import { Alert, Tag } from 'antd';

export function DownloadOnlyNotice({
  files,
  className,
}: {
  files: readonly ProjectFileDto[];
  className?: string;
}) {
  const names = files.filter((f) => f.download_only).map((f) => f.file_name);
  if (names.length === 0) return null;
  return (
    <Alert
      className={className}
      type="info"
      showIcon
      title={format(messages.archive.downloadOnlyFiles, { n: names.length })}
      description={`访问这些文件时浏览器会下载而不是打开，页面的脚本仍可读取它们：${formatNameList(names)}`}
    />
  );
}

/** The type column's cell: the extension, and 仅供下载 for a download-only file. */
export function FileTypeCell({ file }: { file: ProjectFileDto }) {
  return (
    <>
      {file.file_type ? <Tag>{file.file_type}</Tag> : '—'}
      {file.download_only && <Tag color="default">仅供下载</Tag>}
    </>
  );
}
