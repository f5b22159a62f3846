/** Everything the pages rely on around the router: data cache, antd theme and locale, message host. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntdApp, ConfigProvider, theme } from 'antd';
import { type ReactNode, useLayoutEffect } from 'react';
import { ApiError } from './api/client';
import { appLocale, appTheme, brand } from './theme';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // A 4xx answer will not change by asking again; network trouble might.
        retry: (failures, error) =>
          failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}

/**
 * Exposes the theme tokens to the app's own stylesheet as CSS variables on the root element, so
 * they also reach antd's portals (modals, dropdowns) rendered outside the app's tree.
 */
function ThemeVariables({ children }: { children: ReactNode }) {
  const { token } = theme.useToken();
  useLayoutEffect(() => {
    const variables: Record<string, string> = {
      '--sh-primary': token.colorPrimary,
      '--sh-primary-hover': token.colorPrimaryHover,
      '--sh-primary-bg': token.colorPrimaryBg,
      '--sh-primary-deep': brand.primaryDeep,
      '--sh-accent': brand.accent,
      '--sh-text': token.colorText,
      '--sh-text-secondary': token.colorTextSecondary,
      '--sh-border': token.colorBorderSecondary,
      '--sh-bg': token.colorBgLayout,
      '--sh-radius': `${token.borderRadius}px`,
      '--sh-radius-lg': `${token.borderRadiusLG}px`,
    };
    const root = document.documentElement.style;
    for (const [name, value] of Object.entries(variables)) root.setProperty(name, value);
  }, [token]);
  return children;
}

export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={appLocale} theme={appTheme} button={{ autoInsertSpace: false }}>
        <AntdApp>
          <ThemeVariables>{children}</ThemeVariables>
        </AntdApp>
      </ConfigProvider>
    </QueryClientProvider>
  );
}
