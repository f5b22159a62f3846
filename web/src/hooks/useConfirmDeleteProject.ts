/**
 * Deleting a project, after the spec's confirmation: from its card in 我的项目 and from its detail
 * page, which differ only in what a failure says and what follows a deletion.
 */
import { messages, type ProjectDto } from '@sitehall/contracts';
import { App } from 'antd';
import { useDeleteProject } from '../api/projects';

export function useConfirmDeleteProject(options: {
  /** The message of a failed deletion. */
  failure: (error: unknown) => string;
  /** After the project is deleted and the success shown. */
  onDeleted?: () => void;
}): {
  confirmDelete: (project: Pick<ProjectDto, 'id' | 'name'>) => void;
  /** A deletion is on its way (the button shows it). */
  deleting: boolean;
} {
  const { message, modal } = App.useApp();
  const remove = useDeleteProject();
  const { failure, onDeleted } = options;
  const confirmDelete = (project: Pick<ProjectDto, 'id' | 'name'>) => {
    modal.confirm({
      title: `删除项目「${project.name}」`,
      content: messages.project.deleteConfirm,
      okText: '删除',
      okButtonProps: { danger: true },
      cancelText: '取消',
      onOk: async () => {
        try {
          await remove.mutateAsync(project.id);
          message.success(messages.project.deleted);
          onDeleted?.();
        } catch (error) {
          message.error(failure(error));
        }
      },
    });
  };
  return { confirmDelete, deleting: remove.isPending };
}
