/** The look of the app: antd theme tokens and the Chinese locale, applied by AntdShell. */
import type { ThemeConfig } from 'antd';
import zhCN from 'antd/locale/zh_CN';

export const brand = {
  primary: '#4f46e5',
  primaryDeep: '#3730a3',
  accent: '#0ea5e9',
  pageBackground: '#f5f6fb',
} as const;

export const appTheme: ThemeConfig = {
  token: {
    colorPrimary: brand.primary,
    colorInfo: brand.primary,
    colorLink: brand.primary,
    borderRadius: 8,
    colorBgLayout: brand.pageBackground,
    fontFamily:
      "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'Noto Sans SC', 'Helvetica Neue', Arial, sans-serif",
  },
  components: {
    Layout: {
      headerBg: '#ffffff',
      headerHeight: 64,
      headerPadding: '0 24px',
      siderBg: '#ffffff',
      bodyBg: brand.pageBackground,
      footerBg: 'transparent',
    },
    Menu: {
      itemBorderRadius: 8,
      itemMarginInline: 8,
      activeBarBorderWidth: 0,
    },
    Card: {
      headerFontSize: 16,
    },
  },
};

export const appLocale = zhCN;
