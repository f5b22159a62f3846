/**
 * What an account still signing in with a generated password is told (docs/decisions/accounts.md
 * "Initial passwords"): on the dashboard, with a link, and above the profile's 修改密码 form.
 */
export const INITIAL_PASSWORD_NOTE = '你仍在使用系统生成的初始密码，请尽快修改为自己的密码';
