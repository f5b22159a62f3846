/**
 * Who is acting: the signed-in user a request carries (read from its session or API token on every
 * request by `http/access.ts`). Services and policies take an Actor, never a request.
 */
import type { Role } from '@sitehall/contracts';

export interface Actor {
  id: number;
  username: string;
  role: Role;
  /** How the request signed in: a session (the web app) or a personal API token (the CLI, CI). */
  via: 'session' | 'token';
  /** The session's id; 0 for a token, which has no session (policies/token-scope.ts keeps it off session routes). */
  sessionId: number;
}
