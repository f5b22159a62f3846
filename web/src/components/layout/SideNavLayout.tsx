import { Layout, Menu, type MenuProps } from 'antd';
import { Suspense } from 'react';
import { Link, Outlet } from 'react-router-dom';
import { PageLoading } from '../PageLoading';
import { NavBar, type SideNavItem } from './NavBar';
import { NavHereProvider, useNavPath } from './NavHere';
import { MAIN_ID, SkipLink } from './SkipLink';

export type { SideNavItem };

/** The item whose path is the longest prefix of the current path. */
export function currentItem(items: SideNavItem[], pathname: string): SideNavItem | undefined {
  let best: SideNavItem | undefined;
  let bestLength = -1;
  for (const item of items) {
    for (const path of [item.to, ...(item.aliases ?? [])]) {
      const matches = pathname === path || pathname.startsWith(`${path}/`);
      if (matches && path.length > bestLength) {
        best = item;
        bestLength = path.length;
      }
    }
  }
  return best;
}

interface SideNavLayoutProps {
  /** Accessible name of the side navigation, and its visible heading. */
  title: string;
  items: SideNavItem[];
}

/** The navigation bar, a side menu and the page: used by the user console and the admin panel. */
export function SideNavLayout(props: SideNavLayoutProps) {
  return (
    <NavHereProvider>
      <SideNav {...props} />
    </NavHereProvider>
  );
}

function SideNav({ title, items }: SideNavLayoutProps) {
  // The address, or where the page says the visitor is (NavHere.tsx).
  const selected = currentItem(items, useNavPath());
  const menuItems: MenuProps['items'] = items.map((item) => ({
    key: item.to,
    icon: item.icon,
    label: <Link to={item.to}>{item.label}</Link>,
  }));

  return (
    <Layout className="app-shell">
      <SkipLink />
      <NavBar section={{ title, items }} />
      <Layout hasSider className="side-layout">
        <Layout.Sider className="side-layout__sider" width={224} theme="light">
          <nav aria-label={title} className="side-nav">
            <div className="side-nav__title">{title}</div>
            <Menu
              mode="inline"
              items={menuItems}
              selectedKeys={selected ? [selected.to] : []}
              style={{ borderInlineEnd: 'none' }}
            />
          </nav>
        </Layout.Sider>
        <Layout.Content className="side-layout__content" id={MAIN_ID} tabIndex={-1}>
          <div className="side-layout__page">
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </div>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
