// First: zod's settings apply to the schemas built after them.
import './lib/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { AppProviders, createQueryClient } from './AppProviders';
import { prefetchShowcase } from './api/showcase';
import { AppErrorBoundary } from './components/ErrorScreen';
import { createAppRouter } from './router';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

const queryClient = createQueryClient();
const router = createAppRouter();
if (window.location.pathname === '/public') {
  prefetchShowcase(queryClient, new URLSearchParams(window.location.search));
}

createRoot(root).render(
  <StrictMode>
    <AppProviders queryClient={queryClient}>
      <AppErrorBoundary>
        <RouterProvider router={router} />
      </AppErrorBoundary>
    </AppProviders>
  </StrictMode>,
);
