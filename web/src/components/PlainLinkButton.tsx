/**
 * A link drawn as a button without antd: for the navigation bar and the home page, which render
 * before antd has loaded (see AntdShell). Pages use LinkButton.
 */
import type { MouseEvent, ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';

interface PlainLinkButtonProps {
  to: string;
  children: ReactNode;
  icon?: ReactNode;
  /** primary: filled; ghost: outlined on a dark background. */
  variant?: 'default' | 'primary' | 'ghost';
  size?: 'middle' | 'large';
  block?: boolean;
  className?: string;
  /** History state for the page it leads to (e.g. FromState). */
  state?: unknown;
  /** Called when the link is followed (e.g. to close the drawer it sits in). */
  onNavigate?: () => void;
}

export function PlainLinkButton({
  to,
  children,
  icon,
  variant = 'default',
  size = 'middle',
  block = false,
  className,
  state,
  onNavigate,
}: PlainLinkButtonProps) {
  const navigate = useNavigate();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onNavigate?.();
    navigate(to, state === undefined ? undefined : { state });
  };
  const classes = [
    'sh-btn',
    `sh-btn--${variant}`,
    size === 'large' ? 'sh-btn--large' : '',
    block ? 'sh-btn--block' : '',
    className ?? '',
  ].filter(Boolean);
  return (
    <a href={to} className={classes.join(' ')} onClick={onClick}>
      {icon}
      <span>{children}</span>
    </a>
  );
}
