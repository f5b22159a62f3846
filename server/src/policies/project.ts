/** Who may do what to a project. Others' projects are invisible: the same 404 as a missing one. */
import type { Actor } from '../domain/actor.js';

interface OwnedProject {
  owner_id: number;
}

export const projectPolicy = {
  view: (actor: Actor, p: OwnedProject) => actor.role === 'admin' || p.owner_id === actor.id,
  /** Metadata edits and new versions: the owner only. */
  edit: (actor: Actor, p: OwnedProject) => p.owner_id === actor.id,
  delete: (actor: Actor, p: OwnedProject) => actor.role === 'admin' || p.owner_id === actor.id,
  download: (actor: Actor, p: OwnedProject) => actor.role === 'admin' || p.owner_id === actor.id,
  /** Making an earlier approved version live again: the owner, or an admin. */
  rollback: (actor: Actor, p: OwnedProject) => actor.role === 'admin' || p.owner_id === actor.id,
};
