/**
 * The route table of docs/product.md §2 with its guards. Pages load on demand, one chunk per page,
 * each through importChunk (lib/connection.ts): without a connection they wait for the server.
 */
import { type ComponentType, lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate, Outlet, type RouteObject, ScrollRestoration } from 'react-router-dom';
import { lazyInShell } from './AppProviders';
import { GuestOnly, RequireAuth } from './components/auth/RouteGuards';
import { RouteErrorScreen } from './components/ErrorScreen';
import { PublicLayout } from './components/layout/PublicLayout';
import { PageLoading } from './components/PageLoading';
import { AuthProvider } from './hooks/useAuth';
import { importChunk } from './lib/connection';

/**
 * A page component loaded when its route is first visited. `shell`: the page draws with antd and
 * sits in no layout that provides it (the console and admin layouts do), so AntdShell comes with
 * it; `feedback: false`: it shows no antd message or modal, so AntdFeedback does not.
 */
function page<M>(
  load: () => Promise<M>,
  pick: (module: M) => ComponentType,
  { shell = false, feedback = true } = {},
) {
  const Page = shell
    ? lazyInShell(async () => pick(await importChunk(load)), { feedback })
    : lazy(async () => ({ default: pick(await importChunk(load)) }));
  return <Page />;
}

// The console and admin layouts (side menu) load with their first page, antd with them: the public pages don't carry them.
const ConsoleLayout = lazyInShell(
  async () => (await importChunk(() => import('./components/layout/ConsoleLayout'))).ConsoleLayout,
);
const AdminLayout = lazyInShell(
  async () => (await importChunk(() => import('./components/layout/AdminLayout'))).AdminLayout,
);

const HomePage = page(
  () => import('./pages/home/HomePage'),
  (m) => m.HomePage,
);
const ShowcasePage = page(
  () => import('./pages/showcase/ShowcasePage'),
  // Plain markup first; its antd controls come in their own shell (ShowcasePage).
  (m) => m.ShowcasePage,
);
const LoginPage = page(
  () => import('./pages/login/LoginPage'),
  (m) => m.LoginPage,
  { shell: true },
);
const RegisterPage = page(
  () => import('./pages/register/RegisterPage'),
  (m) => m.RegisterPage,
  { shell: true },
);
const DashboardPage = page(
  () => import('./pages/dashboard/DashboardPage'),
  (m) => m.DashboardPage,
);
const ProjectsPage = page(
  () => import('./pages/projects/ProjectsPage'),
  (m) => m.ProjectsPage,
);
const ProjectDetailPage = page(
  () => import('./pages/project-detail/ProjectDetailPage'),
  (m) => m.ProjectDetailPage,
);
const UploadPage = page(
  () => import('./pages/upload/UploadPage'),
  (m) => m.UploadPage,
);
const ProfilePage = page(
  () => import('./pages/profile/ProfilePage'),
  (m) => m.ProfilePage,
);
const NotificationsPage = page(
  () => import('./pages/notifications/NotificationsPage'),
  (m) => m.NotificationsPage,
);
const AdminDashboardPage = page(
  () => import('./pages/admin/dashboard/AdminDashboardPage'),
  (m) => m.AdminDashboardPage,
);
const ReviewListPage = page(
  () => import('./pages/admin/reviews/ReviewListPage'),
  (m) => m.ReviewListPage,
);
const ReviewDetailPage = page(
  () => import('./pages/admin/review-detail/ReviewDetailPage'),
  (m) => m.ReviewDetailPage,
);
const AdminUsersPage = page(
  () => import('./pages/admin/users/AdminUsersPage'),
  (m) => m.AdminUsersPage,
);
const AdminProjectsPage = page(
  () => import('./pages/admin/projects/AdminProjectsPage'),
  (m) => m.AdminProjectsPage,
);
const AdminSettingsPage = page(
  () => import('./pages/admin/settings/AdminSettingsPage'),
  (m) => m.AdminSettingsPage,
);
const AdminDomainsPage = page(
  () => import('./pages/admin/domains/AdminDomainsPage'),
  (m) => m.AdminDomainsPage,
);
const AuditLogsPage = page(
  () => import('./pages/admin/audit-logs/AuditLogsPage'),
  (m) => m.AuditLogsPage,
);
const AdminOverviewPage = page(
  () => import('./pages/admin/overview/AdminOverviewPage'),
  (m) => m.AdminOverviewPage,
);

/** Auth state needs the router (to send people to /login), so it lives in the root route. */
function RootRoute() {
  return (
    <AuthProvider>
      <ScrollRestoration />
      <Outlet />
    </AuthProvider>
  );
}

/** Pages render their errors inside the layout, so the navigation stays usable. */
const withinLayout = (children: RouteObject[]): RouteObject[] => [
  { errorElement: <RouteErrorScreen />, children },
];

export const routes: RouteObject[] = [
  {
    element: <RootRoute />,
    errorElement: <RouteErrorScreen />,
    children: [
      {
        element: <PublicLayout />,
        children: withinLayout([
          { index: true, element: HomePage },
          { path: 'public', element: ShowcasePage },
          { path: 'login', element: <GuestOnly>{LoginPage}</GuestOnly> },
          // Sign-in is enough to reach it; the page itself tells non-admins it is restricted (docs/product.md §6).
          { path: 'register', element: <RequireAuth>{RegisterPage}</RequireAuth> },
        ]),
      },
      {
        element: (
          <RequireAuth>
            <Suspense fallback={<PageLoading fullscreen />}>
              <ConsoleLayout />
            </Suspense>
          </RequireAuth>
        ),
        children: withinLayout([
          { path: 'dashboard', element: DashboardPage },
          { path: 'projects', element: ProjectsPage },
          { path: 'projects/:id', element: ProjectDetailPage },
          { path: 'upload', element: UploadPage },
          { path: 'profile', element: ProfilePage },
          { path: 'notifications', element: NotificationsPage },
        ]),
      },
      {
        path: 'admin',
        element: (
          <RequireAuth permission="admin">
            <Suspense fallback={<PageLoading fullscreen />}>
              <AdminLayout />
            </Suspense>
          </RequireAuth>
        ),
        children: withinLayout([
          { index: true, element: AdminDashboardPage },
          { path: 'dashboard', element: AdminDashboardPage },
          { path: 'reviews', element: ReviewListPage },
          { path: 'reviews/:id', element: ReviewDetailPage },
          { path: 'users', element: AdminUsersPage },
          { path: 'projects', element: AdminProjectsPage },
          { path: 'settings', element: AdminSettingsPage },
          { path: 'domains', element: AdminDomainsPage },
          { path: 'audit-logs', element: AuditLogsPage },
          // Any other admin address: the admin panel with the platform's real counters (docs/product.md §2).
          { path: '*', element: AdminOverviewPage },
        ]),
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
