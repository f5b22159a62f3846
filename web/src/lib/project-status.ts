/** Facts about a project's status worth saying in more than one place. */
import type { ProjectDto } from '@sitehall/contracts';

/**
 * A live project whose newest version waits for review or was refused keeps serving the live
 * version: "线上版本 v2". Null when there is nothing to note.
 */
export function liveVersionNote(
  project: Pick<ProjectDto, 'is_live' | 'live_version' | 'status'>,
): string | null {
  if (!project.is_live || project.live_version === null) return null;
  if (project.status !== 'pending' && project.status !== 'rejected') return null;
  return `线上版本 v${project.live_version}`;
}

/**
 * The same note as one sentence, for a list row or card: "线上版本 v1，新版本未通过审核" (or
 * 审核中), so the owner reads that the site is still live, not only the newest version's status.
 */
export function newVersionNote(
  project: Pick<ProjectDto, 'is_live' | 'live_version' | 'status'>,
): string | null {
  const note = liveVersionNote(project);
  if (note === null) return null;
  return `${note}，新版本${project.status === 'pending' ? '审核中' : '未通过审核'}`;
}
