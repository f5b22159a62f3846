import {
  AppstoreOutlined,
  CloudUploadOutlined,
  ControlOutlined,
  FolderOpenOutlined,
  HomeOutlined,
  MenuOutlined,
  UserAddOutlined,
} from '@ant-design/icons';
import { type ReactNode, Suspense, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { lazyInShell } from '../../AppProviders';
import { useAuth } from '../../hooks/useAuth';
import { importChunk } from '../../lib/connection';
import { BrandLogo } from '../BrandLogo';
import { PartBoundary } from '../PartBoundary';
import { PlainLinkButton } from '../PlainLinkButton';
import { useNavHerePath } from './NavHere';

/** An entry of the console's side navigation (SideNavLayout), also listed in the phone menu here. */
export interface SideNavItem {
  to: string;
  label: string;
  icon: ReactNode;
  /** Other paths that show this item as current (e.g. /admin for the overview). */
  aliases?: string[];
}

// The bar itself is drawn without antd (it is on the home page's first load). Only signed-in people
// see the user menu, and only narrow screens open the drawer: both load on demand, with antd.
// The menu tells sign-out's outcome with antd's static message, so it needs no message host.
// Without a connection their code waits for the server (the notice says so); code the server no
// longer has leaves the part out, not the page (PartBoundary).
const UserMenu = lazyInShell(async () => (await importChunk(() => import('./UserMenu'))).UserMenu, {
  inline: true,
  feedback: false,
});
const NotificationBell = lazyInShell(
  async () => (await importChunk(() => import('./NotificationBell'))).NotificationBell,
  {
    inline: true,
    feedback: false,
  },
);
const NavDrawer = lazyInShell(async () => (await importChunk(() => import('./NavDrawer'))).NavDrawer, {
  inline: true,
  feedback: false,
});

interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  /** Only the exact path counts as active (home). */
  end?: boolean;
}

/** Spec §2: home and showcase always; my projects and upload when signed in; the admin panel for admins. */
export function navItemsFor(signedIn: boolean, admin: boolean): NavItem[] {
  return [
    { to: '/', label: '首页', icon: <HomeOutlined aria-hidden />, end: true },
    { to: '/public', label: '展厅', icon: <AppstoreOutlined aria-hidden /> },
    ...(signedIn
      ? [
          { to: '/projects', label: '我的项目', icon: <FolderOpenOutlined aria-hidden /> },
          { to: '/upload', label: '上传项目', icon: <CloudUploadOutlined aria-hidden /> },
        ]
      : []),
    ...(admin ? [{ to: '/admin', label: '管理后台', icon: <ControlOutlined aria-hidden /> }] : []),
  ];
}

function NavLinks({
  items,
  label = '主导航',
  vertical = false,
  onNavigate,
}: {
  items: NavItem[];
  label?: string;
  vertical?: boolean;
  onNavigate?: () => void;
}) {
  // A page's word on where the visitor is (NavHere.tsx) decides over the address.
  const claimed = useNavHerePath();
  return (
    <nav aria-label={label} className={vertical ? 'main-nav main-nav--vertical' : 'main-nav'}>
      {items.map((item) =>
        claimed !== undefined ? (
          <Link
            key={item.to}
            to={item.to}
            onClick={onNavigate}
            aria-current={isUnder(claimed, item) ? 'page' : undefined}
            className={isUnder(claimed, item) ? 'main-nav__link main-nav__link--active' : 'main-nav__link'}
          >
            {item.icon}
            <span>{item.label}</span>
          </Link>
        ) : (
          <NavLink
            key={item.to}
            to={item.to}
            end={item.end}
            onClick={onNavigate}
            className={({ isActive }) =>
              isActive ? 'main-nav__link main-nav__link--active' : 'main-nav__link'
            }
          >
            {item.icon}
            <span>{item.label}</span>
          </NavLink>
        ),
      )}
    </nav>
  );
}

/** As NavLink decides: the item's path, or (unless `end`) a path under it. */
function isUnder(path: string, item: NavItem): boolean {
  return path === item.to || (!item.end && path.startsWith(`${item.to === '/' ? '' : item.to}/`));
}

/** The side menu of the current layout, repeated in the drawer on narrow screens where the side menu is hidden. */
export interface NavSection {
  title: string;
  items: SideNavItem[];
}

export function NavBar({ section }: { section?: NavSection }) {
  const { user, hasPermission } = useAuth();
  const isAdmin = hasPermission('admin');
  const items = navItemsFor(user !== null, isAdmin);
  // No button to the page already open: 登录 on the login page, 注册用户 on the register page.
  const here = useLocation().pathname.replace(/\/+$/, '');
  const offerRegister = isAdmin && here !== '/register';
  const offerLogin = here !== '/login';
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [drawerUsed, setDrawerUsed] = useState(false);
  const closeDrawer = () => setDrawerOpen(false);

  return (
    <header className="app-header">
      <div className="app-header__inner">
        <BrandLogo />
        <div className="app-header__nav">
          <NavLinks items={items} />
        </div>
        <div className="app-header__actions">
          {offerRegister && (
            <PlainLinkButton
              to="/register"
              icon={<UserAddOutlined aria-hidden />}
              className="app-header__register"
            >
              注册用户
            </PlainLinkButton>
          )}
          {user && (
            <PartBoundary>
              <Suspense fallback={<span className="notification-bell-placeholder" />}>
                <NotificationBell />
              </Suspense>
            </PartBoundary>
          )}
          {user ? (
            <PartBoundary>
              <Suspense fallback={<span className="user-menu-placeholder" />}>
                <UserMenu />
              </Suspense>
            </PartBoundary>
          ) : (
            offerLogin && (
              <PlainLinkButton to="/login" variant="primary">
                登录
              </PlainLinkButton>
            )
          )}
          <button
            type="button"
            className="sh-btn sh-btn--text app-header__menu-button"
            aria-label="打开导航菜单"
            onClick={() => {
              setDrawerUsed(true);
              setDrawerOpen(true);
            }}
          >
            <MenuOutlined aria-hidden />
          </button>
        </div>
      </div>
      {drawerUsed && (
        <PartBoundary>
          <Suspense fallback={null}>
            <NavDrawer open={drawerOpen} onClose={closeDrawer}>
              <NavLinks items={items} vertical onNavigate={closeDrawer} />
              {section && (
                <div className="drawer-section">
                  <div className="drawer-section__title">{section.title}</div>
                  <NavLinks
                    label={section.title}
                    items={section.items.map((item) => ({ ...item, end: true }))}
                    vertical
                    onNavigate={closeDrawer}
                  />
                </div>
              )}
              {offerRegister && (
                <PlainLinkButton
                  to="/register"
                  block
                  icon={<UserAddOutlined aria-hidden />}
                  className="drawer-register"
                  onNavigate={closeDrawer}
                >
                  注册用户
                </PlainLinkButton>
              )}
            </NavDrawer>
          </Suspense>
        </PartBoundary>
      )}
    </header>
  );
}
