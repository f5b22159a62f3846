/**
 * The first stop of the keyboard: 跳到主要内容, shown when focused, moves focus to the page's main
 * content past the navigation bar and the side menu (an outside review counted 12 Tabs to the
 * upload form). The main element takes focus by script (tabIndex -1), not by the address's hash,
 * which the router owns.
 */
import type { MouseEvent } from 'react';

export const MAIN_ID = 'main-content';

export function SkipLink() {
  const skip = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    document.getElementById(MAIN_ID)?.focus();
  };
  return (
    <a className="skip-link" href={`#${MAIN_ID}`} onClick={skip}>
      跳到主要内容
    </a>
  );
}
