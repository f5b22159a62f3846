import { isAllowedAvatar, type UserDto } from '@sitehall/contracts';
import { Avatar } from 'antd';
import { useState } from 'react';

const PALETTE = ['#4f46e5', '#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#8b5cf6', '#ec4899', '#14b8a6'];

/** A stable colour per username, so the same person always gets the same initial badge. */
export function avatarColor(username: string): string {
  let hash = 0;
  for (const char of username) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return PALETTE[hash % PALETTE.length] ?? PALETTE[0]!;
}

export function initialOf(username: string): string {
  return (Array.from(username.trim())[0] ?? '?').toUpperCase();
}

/** The user's picture, or the first letter of the name on a coloured disc. */
export function UserAvatar({ user, size }: { user: Pick<UserDto, 'username' | 'avatar'>; size?: number }) {
  const [broken, setBroken] = useState(false);
  // Only an image of its own (docs/decisions/accounts.md "Avatars"): never a request to another host.
  if (user.avatar && isAllowedAvatar(user.avatar) && !broken) {
    return (
      <Avatar
        size={size}
        src={user.avatar}
        alt={`${user.username} 的头像`}
        onError={() => {
          setBroken(true);
          return false;
        }}
      />
    );
  }
  return (
    <Avatar
      size={size}
      style={{ backgroundColor: avatarColor(user.username), flexShrink: 0 }}
      aria-hidden="true"
    >
      {initialOf(user.username)}
    </Avatar>
  );
}
