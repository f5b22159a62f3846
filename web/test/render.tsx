import { StyleProvider } from '@ant-design/cssinjs';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders, createQueryClient } from '../src/AppProviders';
import { routes } from '../src/router';

/**
 * antd's CSS-in-JS rules go to a detached node: jsdom matches every rule against every ancestor
 * in getComputedStyle, which Testing Library calls for each element it checks, and with antd's
 * thousands of rules that takes seconds per element. Tests check behaviour, not looks.
 * (@ant-design/cssinjs is antd's own styling engine; web lists it as a dev dependency.)
 */
const antdStyles = document.createElement('div');

type Entry = string | { pathname: string; search?: string; state?: unknown };

/** Renders the whole app (providers, routes, guards) at a path, as the browser would. */
export function renderApp(entry: Entry = '/') {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  const router = createMemoryRouter(routes, { initialEntries: [entry] });
  const user = userEvent.setup();
  const view = render(
    <StyleProvider container={antdStyles}>
      <AppProviders queryClient={queryClient}>
        <RouterProvider router={router} />
      </AppProviders>
    </StyleProvider>,
  );
  return { ...view, router, queryClient, user };
}

/** Renders one component with the app's data cache around it, for components tested on their own. */
export function renderInProviders(node: ReactNode) {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  const view = render(
    <StyleProvider container={antdStyles}>
      <AppProviders queryClient={queryClient}>{node}</AppProviders>
    </StyleProvider>,
  );
  return { ...view, queryClient };
}
