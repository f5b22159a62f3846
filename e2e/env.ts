import fs from 'node:fs';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);
/** The server with the render worker on (playwright.config.ts), beside the app's and its sites port. */
export const E2E_RENDER_PORT = E2E_PORT + 2;
/** A second server with the render worker off, for the files playwright.config.ts runs beside the first's. */
export const E2E_SECOND_PORT = E2E_PORT + 4;
export const E2E_ADMIN_PASSWORD = 'e2e-hall-keeper-lantern-1';

/** Debian's Chromium (never a downloaded browser); CHROMIUM_PATH overrides. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    Boolean,
  ) as string[];
  return candidates.find((p) => fs.existsSync(p)) ?? '/usr/bin/chromium';
}
