/**
 * antd's theme and Chinese locale. Every page but the home page renders inside it; it loads with
 * the first such page (AppProviders' lazyInShell), so the home page's first load carries no antd
 * code. The message/modal host is AntdFeedback, for the pages that use it.
 */
import { ConfigProvider, theme } from 'antd';
import { type ReactNode, useLayoutEffect } from 'react';
import { appLocale, appTheme, brand } from './theme';

/**
 * Exposes the theme tokens to the app's own stylesheet as CSS variables on the root element, so
 * they also reach antd's portals (modals, dropdowns) rendered outside the app's tree. styles.css
 * holds the same values for the pages drawn before antd loads.
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

// antd's static message, notification and modal (used where the component that calls them is about
// to go, as the user menu on sign-out) render in the app's theme and locale too.
ConfigProvider.config({
  holderRender: (children) => (
    <ConfigProvider locale={appLocale} theme={appTheme}>
      {children}
    </ConfigProvider>
  ),
});

export function AntdShell({ children }: { children: ReactNode }) {
  return (
    <ConfigProvider locale={appLocale} theme={appTheme} button={{ autoInsertSpace: false }}>
      <ThemeVariables>{children}</ThemeVariables>
    </ConfigProvider>
  );
}
