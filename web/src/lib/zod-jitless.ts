/**
 * zod without its JIT: with it, zod probes for `new Function` as the first object schema is built,
 * which the app's CSP (script-src without 'unsafe-eval') reports as a violation on every page that
 * loads a schema. zod keeps its settings in globalThis.__zod_globalConfig (what `z.config()` writes,
 * shared by every copy of zod, created by the first). Setting it here, first thing in main.tsx,
 * applies before any schema is built, without loading zod's core with the home page.
 */
const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
holder.__zod_globalConfig ??= {};
holder.__zod_globalConfig.jitless = true;

export {};
