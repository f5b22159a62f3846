/**
 * npm run reset-password -- USERNAME: sets a new generated password, prints it once, signs the
 * account out everywhere and revokes its API tokens. Reads the same environment as the server (DATA_DIR, DATABASE_URL).
 */
import { loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { migrateToLatest, openDatabase } from '../db/database.js';
import { openBlobStore } from '../storage/index.js';

async function main() {
  const username = process.argv[2];
  if (!username) {
    console.error('用法 usage: npm run reset-password -- USERNAME');
    process.exit(2);
  }
  const config = loadConfig();
  const database = openDatabase(config.database);
  const store = await openBlobStore(config);
  let closeCluster = async () => {};
  try {
    await migrateToLatest(database);
    const ctx = createContext(config, database, { store });
    closeCluster = () => ctx.cluster.close();
    // With REDIS_URL the sign-in counts cleared below live in Redis: connect before using it.
    await ctx.cluster.ready;
    const user = await ctx.services.accounts.userByUsername(username);
    if (!user) {
      console.error(`用户不存在 / no such user: ${username}`);
      process.exitCode = 1;
      return;
    }
    const { password } = await ctx.services.accounts.resetPassword(null, user.id, { ip: 'cli' });
    if (user.disabled) console.error(`注意：账号 ${user.username} 已停用 / note: the account is disabled`);
    // The password is the last line of stdout, on its own, so scripts can read it.
    console.log(
      `已重置 ${user.username} 的密码，所有登录已退出，API 令牌已撤销 / new password for ${user.username}:\n${password}`,
    );
  } finally {
    await closeCluster();
    await database.close();
    await store.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
