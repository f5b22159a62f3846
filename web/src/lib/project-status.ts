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
