/** config → app → listen; signals; nothing else (lifecycle.ts holds how). */
import { buildApp } from './app.js';
import { ConfigError, customDomainsNotice, loadConfig, sharedOriginNotice } from './config.js';
import { Invalid } from './domain/errors.js';
import type { MetricsServer } from './http/metrics.js';
import { closeOnSignals, listen } from './lifecycle.js';

async function main() {
  const config = loadConfig();
  const built = await buildApp(config);
  const { app, ctx, startup } = built;
  // Every stream and emitter handles its own errors (docs/decisions/http.md "HTTP"). Should one slip
  // through, the process still ends (its state is unknown; a supervisor restarts it), but the log
  // says first what it was.
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    app.log.fatal({ err, origin }, 'uncaught error: an error nothing handled ends the process');
  });
  // After the database answers: at once, or (PostgreSQL down at start) once it is back.
  const firstAdmin = startup
    .then(() => ctx.services.accounts.ensureFirstAdmin(config.adminPassword))
    .then((admin) => {
      if (!admin.created) return;
      const line = '='.repeat(60);
      const pw = admin.generated ? admin.password : '(取自 ADMIN_PASSWORD / from ADMIN_PASSWORD)';
      // A generated password is shown once; one the operator chose is not shown at all.
      const keep = admin.generated
        ? '请登录后妥善保存 — this password is shown only once.'
        : '使用启动时设置的 ADMIN_PASSWORD 登录 — sign in with the ADMIN_PASSWORD you set.';
      // Printed once, straight to the console, never through the structured log.
      process.stdout.write(
        `\n${line}\n  已创建管理员账号 / first admin account created\n  用户名 username: admin\n  密码 password:   ${pw}\n  ${keep}\n${line}\n\n`,
      );
    })
    .catch((err: unknown) => {
      if (!(err instanceof Invalid)) return app.log.error({ err }, 'first admin account not created');
      // A weak ADMIN_PASSWORD (docs/decisions/accounts.md "Passwords"): nothing was created; stop, saying why.
      console.error(
        `${err.message}\nADMIN_PASSWORD is too weak: the first admin account was not created. Choose a harder password, or leave it unset to get a generated one.`,
      );
      process.exitCode = 1;
      void app.close().finally(() => process.exit(1));
    });
  // With the database there at start, the first admin exists before the port opens: a sign-in sent
  // the moment /healthz answers never meets an account still being made (its hash takes a while).
  if (built.reachedAtStart) await firstAdmin;
  let metricsServer: MetricsServer | undefined;
  closeOnSignals(app, config, () => metricsServer);
  metricsServer = await listen(built, config);
  app.log.info(`SiteHall 已启动: http://localhost:${config.port}`);
  if (config.sitesPort) app.log.info(`sites: http://localhost:${config.sitesPort}/sites/{id}/ (SITES_PORT)`);
  const notice = sharedOriginNotice(config);
  if (notice) app.log.warn(notice);
  const domains = customDomainsNotice(config);
  if (domains) app.log.warn(domains);
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
