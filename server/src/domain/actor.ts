/**
 * Who is acting: the signed-in user a request carries (read from its session on every request by
 * `http/access.ts`). Services and policies take an Actor, never a request.
 */
import type { Role } from '@sitehall/contracts';

export interface Actor {
  id: number;
  username: string;
  role: Role;
  sessionId: number;
}
