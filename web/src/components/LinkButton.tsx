import { Button, type ButtonProps } from 'antd';
import type { MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';

type LinkButtonProps = Omit<ButtonProps, 'href' | 'onClick'> & {
  to: string;
  /** History state for the page it opens (see components/admin/returnTo.ts). */
  state?: unknown;
  /** Called when the link is followed (e.g. to close the drawer it sits in). */
  onNavigate?: () => void;
};

/**
 * A button that is a real link (role link, opens in a new tab with a modifier key) and navigates
 * inside the app without reloading the page.
 */
export function LinkButton({ to, state, onNavigate, ...props }: LinkButtonProps) {
  const navigate = useNavigate();
  const onClick = (event: MouseEvent<HTMLElement>) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onNavigate?.();
    navigate(to, { state });
  };
  return <Button {...props} href={to} onClick={onClick} />;
}
