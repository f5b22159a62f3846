/**
 * Where the files of an upload are chosen (docs/product.md §2 "Upload", §5): drop folders, loose files or an
 * archive, or pick files or a whole folder. Every addition goes through the same rules
 * (lib/upload-files), and the chosen files are listed with their relative paths.
 */
import './project-ui.css';
import {
  CloseOutlined,
  DeleteOutlined,
  FileOutlined,
  FileZipOutlined,
  FolderOpenOutlined,
  InboxOutlined,
  PlusOutlined,
} from '@ant-design/icons';
import { formatBytes, messages } from '@sitehall/contracts';
import { Alert, Button, Spin, Typography } from 'antd';
import { type ChangeEvent, type DragEvent, useEffect, useRef, useState } from 'react';
import { useTouchScreen } from '../hooks/useTouchScreen';
import {
  acceptAttribute,
  addFiles,
  type FileProblem,
  filesFromDataTransfer,
  isArchivePath,
  type PickedFile,
  totalBytes,
  type UploadRules,
  withRelativePath,
} from '../lib/upload-files';
import { FileSize } from './FileSize';

interface UploadDropzoneProps {
  /** The chosen files (controlled; antd Form.Item passes value and onChange). */
  value?: PickedFile[];
  onChange?: (files: PickedFile[]) => void;
  rules: UploadRules;
  disabled?: boolean;
  /** Set by Form.Item so the field's label points at the picker. */
  id?: string;
}

const PROBLEM_PATHS_SHOWN = 5;
/** The pickers are opened by the buttons; inline, since antd's form styles show file inputs. */
const HIDDEN = { display: 'none' } as const;

function ProblemList({ problems, onClose }: { problems: FileProblem[]; onClose: () => void }) {
  return (
    <Alert
      className="upload-dropzone__problems"
      type="error"
      showIcon
      closable={{ onClose }}
      title={problems.length === 1 ? problems[0]?.message : '部分文件未能添加'}
      description={
        <ul className="upload-dropzone__problem-list">
          {problems.map((problem) => {
            const shown = problem.paths.slice(0, PROBLEM_PATHS_SHOWN).join('、');
            const more = problem.paths.length - PROBLEM_PATHS_SHOWN;
            const files = shown ? `${shown}${more > 0 ? ` 等 ${problem.paths.length} 个文件` : ''}` : '';
            return (
              <li key={problem.message}>
                {problems.length > 1 && <div>{problem.message}</div>}
                {files && <Typography.Text type="secondary">涉及文件：{files}</Typography.Text>}
              </li>
            );
          })}
        </ul>
      }
    />
  );
}

export function UploadDropzone({ value, onChange, rules, disabled = false, id }: UploadDropzoneProps) {
  const files = value ?? [];
  const filesRef = useRef(files);
  filesRef.current = files;
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const dragDepth = useRef(0);
  const [dragging, setDragging] = useState(false);
  const [reading, setReading] = useState(false);
  const [problems, setProblems] = useState<FileProblem[]>([]);
  // On a phone nothing can be dragged here: the zone says to tap it instead.
  const touch = useTouchScreen();

  // React does not know the folder-picking attribute; set it on the element.
  useEffect(() => {
    if (folderInput.current) folderInput.current.webkitdirectory = true;
  }, []);

  const add = async (incoming: PickedFile[], source: 'drop' | 'pick') => {
    if (incoming.length === 0) {
      setProblems([
        {
          message: source === 'drop' ? messages.project.dropInvalid : messages.project.pickInvalid,
          paths: [],
        },
      ]);
      return;
    }
    setReading(true);
    try {
      const result = await addFiles(filesRef.current, incoming, rules, source);
      if (result.files.length !== filesRef.current.length) onChange?.(result.files);
      setProblems(result.problems);
    } finally {
      setReading(false);
    }
  };

  const onDragEnter = (event: DragEvent) => {
    event.preventDefault();
    if (disabled) return;
    dragDepth.current += 1;
    setDragging(true);
  };
  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
  };
  const onDragLeave = () => {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  };
  const onDrop = async (event: DragEvent) => {
    event.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    if (disabled) return;
    let incoming: PickedFile[];
    try {
      incoming = await filesFromDataTransfer(event.dataTransfer);
    } catch {
      setProblems([{ message: messages.project.dropFailed, paths: [] }]);
      return;
    }
    await add(incoming, 'drop');
  };

  const onPicked = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const picked = Array.from(input.files ?? []).map(withRelativePath);
    // Cleared, so choosing the same file again fires another change.
    input.value = '';
    await add(picked, 'pick');
  };

  const remove = (index: number) => onChange?.(files.filter((_, i) => i !== index));

  const zoneClass = [
    'upload-dropzone',
    dragging ? 'upload-dropzone--active' : '',
    disabled ? 'upload-dropzone--disabled' : '',
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <div className="upload-dropzone-field">
      <section
        className={zoneClass}
        aria-label={touch ? '上传区域' : '拖拽上传区域'}
        aria-disabled={disabled}
        onDragEnter={onDragEnter}
        onDragOver={onDragOver}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
        onClick={() => !disabled && fileInput.current?.click()}
      >
        <InboxOutlined className="upload-dropzone__icon" aria-hidden />
        <div className="upload-dropzone__title">
          {touch
            ? '点击选择网站文件、文件夹或压缩包'
            : dragging
              ? '松开鼠标即可添加'
              : '将网站文件夹、文件或压缩包拖到此处'}
        </div>
        <div className="upload-dropzone__hint">
          {/* The counting rule of lib/upload-files uploadItemCount, the server's too. */}
          {touch ? null : '或点击此区域选择文件；'}单次最多 {rules.maxFiles}{' '}
          项（整个文件夹或压缩包算一项），共不超过 {rules.maxEntries.toLocaleString('zh-CN')}{' '}
          个文件，单个文件不超过 {formatBytes(rules.maxFileBytes)}
        </div>
        <div className="upload-dropzone__actions">
          <Button
            id={id}
            icon={<PlusOutlined aria-hidden />}
            disabled={disabled}
            onClick={(event) => {
              event.stopPropagation();
              fileInput.current?.click();
            }}
          >
            选择文件
          </Button>
          <Button
            icon={<FolderOpenOutlined aria-hidden />}
            disabled={disabled}
            onClick={(event) => {
              event.stopPropagation();
              folderInput.current?.click();
            }}
          >
            选择文件夹
          </Button>
        </div>
        <input
          ref={fileInput}
          type="file"
          multiple
          style={HIDDEN}
          accept={acceptAttribute(rules.allowedExtensions)}
          aria-label="选择文件"
          data-testid="file-input"
          onChange={onPicked}
          onClick={(event) => event.stopPropagation()}
        />
        <input
          ref={folderInput}
          type="file"
          multiple
          style={HIDDEN}
          aria-label="选择文件夹"
          data-testid="folder-input"
          onChange={onPicked}
          onClick={(event) => event.stopPropagation()}
        />
      </section>

      {reading && (
        <div className="upload-dropzone__reading" role="status">
          <Spin size="small" /> 正在检查文件...
        </div>
      )}
      {problems.length > 0 && <ProblemList problems={problems} onClose={() => setProblems([])} />}

      {files.length > 0 && (
        <div className="upload-file-list">
          <div className="upload-file-list__head">
            <span>
              已选择 <strong>{files.length}</strong> 个文件，共 <FileSize bytes={totalBytes(files)} />
            </span>
            <Button
              type="link"
              size="small"
              danger
              disabled={disabled}
              icon={<DeleteOutlined aria-hidden />}
              onClick={() => {
                onChange?.([]);
                setProblems([]);
              }}
            >
              清空
            </Button>
          </div>
          <ul className="upload-file-list__items" aria-label="已选择的文件">
            {files.map(({ file, path }, index) => (
              <li key={`${path}-${file.size}-${file.lastModified}`} className="upload-file-list__item">
                {isArchivePath(path) ? (
                  <FileZipOutlined className="upload-file-list__icon" aria-hidden />
                ) : (
                  <FileOutlined className="upload-file-list__icon" aria-hidden />
                )}
                <span className="upload-file-list__path" title={path}>
                  {path}
                </span>
                <span className="upload-file-list__size">
                  <FileSize bytes={file.size} />
                </span>
                <Button
                  type="text"
                  size="small"
                  disabled={disabled}
                  icon={<CloseOutlined aria-hidden />}
                  aria-label={`移除 ${path}`}
                  onClick={() => remove(index)}
                />
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
