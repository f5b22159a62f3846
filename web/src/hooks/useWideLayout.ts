import { Grid } from 'antd';

/**
 * Whether the window is at least antd's `md` breakpoint (768 px): wide enough for a table to pin its
 * action column. Before the first measurement it reads as wide, so a desktop never flickers.
 */
export function useWideLayout(): boolean {
  return Grid.useBreakpoint().md ?? true;
}
