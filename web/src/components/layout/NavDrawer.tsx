/** The navigation drawer of narrow screens: its own chunk, loaded the first time it is opened. */
import { Drawer } from 'antd';
import type { ReactNode } from 'react';

export function NavDrawer({
  open,
  onClose,
  children,
}: {
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Drawer title="站点展厅" placement="left" size={280} open={open} onClose={onClose} destroyOnHidden>
      {children}
    </Drawer>
  );
}
