/**
 * The well-known services a site talks to, and what each is for (docs/content-check.md "Services"):
 * the one place the check learns that jsDelivr serves libraries, Baidu Tongji counts visits,
 * Formspree receives messages and the Telegram bot API is where phishing kits drop what they took.
 *
 * A request is judged by what it carries and where it goes, not by the host alone: a service is
 * listed with what it is meant to receive, and data it is not meant to receive (a password to a
 * form service, anything to a drop) is the risk. Adding a service: one entry here, one example in
 * services.spec.ts.
 */

/** What a service is meant to receive from a page. */
export type ServiceReceives =
  /** Nothing: it serves files (libraries, fonts, players, tiles). A GET is a load. */
  | 'nothing'
  /** Visit and usage pings (analytics, tag managers, counters). */
  | 'usage'
  /** What visitors write to the site's owner: contact forms, surveys, sign-ups, comments. */
  | 'messages'
  /** Sign-in and data of the site's own backend (Firebase, Supabase, LeanCloud): passwords included. */
  | 'accounts'
  /** A drop: a bot API, a webhook, a paste site, a tunnel or request catcher. Nothing a static page sends there is ordinary. */
  | 'drop';

export type ServicePurpose =
  | 'cdn'
  | 'fonts'
  | 'analytics'
  | 'video'
  | 'map'
  | 'comments'
  | 'forms'
  | 'backend'
  | 'code'
  | 'api'
  | 'chat-bot'
  | 'paste'
  | 'tunnel';

export interface WellKnownService {
  /** As the reviewer knows it. */
  name: string;
  purpose: ServicePurpose;
  receives: ServiceReceives;
  /** Hosts and their subdomains. */
  domains: readonly string[];
  /** When only some paths of those hosts are the service (Telegram's /bot…, Discord's webhooks). */
  path?: RegExp;
}

/** Chinese names of the purposes, for findings and the reviewer. */
export const PURPOSE_LABELS: Record<ServicePurpose, string> = {
  cdn: '公共 CDN',
  fonts: '字体服务',
  analytics: '统计分析',
  video: '视频播放器',
  map: '地图',
  comments: '评论组件',
  forms: '表单服务',
  backend: '云后端',
  code: '代码演示',
  api: '公共接口',
  'chat-bot': '聊天机器人接口',
  paste: '粘贴板网站',
  tunnel: '内网穿透或请求收集服务',
};

const s = (
  name: string,
  purpose: ServicePurpose,
  receives: ServiceReceives,
  domains: readonly string[],
  path?: RegExp,
): WellKnownService => ({ name, purpose, receives, domains, ...(path ? { path } : {}) });

export const SERVICES: readonly WellKnownService[] = [
  // Libraries, styles and fonts.
  s('jsDelivr', 'cdn', 'nothing', ['jsdelivr.net']),
  s('unpkg', 'cdn', 'nothing', ['unpkg.com']),
  s('cdnjs', 'cdn', 'nothing', ['cdnjs.cloudflare.com']),
  s('BootCDN', 'cdn', 'nothing', ['bootcdn.net', 'bootcss.com']),
  s('Staticfile', 'cdn', 'nothing', ['staticfile.org', 'staticfile.net']),
  s('字节跳动静态资源', 'cdn', 'nothing', ['bytecdntp.com', 'cdn.bytedance.com']),
  s('Google Hosted Libraries', 'cdn', 'nothing', ['ajax.googleapis.com']),
  s('jQuery CDN', 'cdn', 'nothing', ['code.jquery.com']),
  s('esm.sh', 'cdn', 'nothing', ['esm.sh', 'skypack.dev']),
  s('Font Awesome', 'cdn', 'nothing', ['fontawesome.com', 'use.fontawesome.com', 'kit.fontawesome.com']),
  s('Google Fonts', 'fonts', 'nothing', ['fonts.googleapis.com', 'fonts.gstatic.com']),
  s('Google Fonts 镜像', 'fonts', 'nothing', ['fonts.loli.net', 'gstatic.loli.net', 'fonts.font.im']),
  s('Adobe Fonts', 'fonts', 'nothing', ['use.typekit.net', 'p.typekit.net']),
  // Analytics: a visit or a click reported is what they are for.
  s('Google Analytics', 'analytics', 'usage', [
    'google-analytics.com',
    'analytics.google.com',
    'googletagmanager.com',
    'doubleclick.net',
    'region1.google-analytics.com',
  ]),
  s('百度统计', 'analytics', 'usage', ['hm.baidu.com']),
  s('友盟 / CNZZ', 'analytics', 'usage', ['cnzz.com', 'umeng.com']),
  s('51.la', 'analytics', 'usage', ['51.la']),
  s('Microsoft Clarity', 'analytics', 'usage', ['clarity.ms']),
  s('Hotjar', 'analytics', 'usage', ['hotjar.com', 'hotjar.io']),
  s('Plausible', 'analytics', 'usage', ['plausible.io']),
  s('Umami', 'analytics', 'usage', ['umami.is', 'cloud.umami.is']),
  s('Cloudflare Web Analytics', 'analytics', 'usage', [
    'static.cloudflareinsights.com',
    'cloudflareinsights.com',
  ]),
  s('不蒜子', 'analytics', 'usage', ['busuanzi.ibruce.info']),
  s('Vercel Analytics', 'analytics', 'usage', ['vitals.vercel-insights.com']),
  // A/B testing and customer-data tools: the same visits and events, for experiments.
  s('VWO', 'analytics', 'usage', ['visualwebsiteoptimizer.com', 'vwo.com']),
  s('Optimizely', 'analytics', 'usage', ['optimizely.com']),
  s('Segment', 'analytics', 'usage', ['segment.com', 'segment.io']),
  // Players, maps and code embeds.
  s('YouTube', 'video', 'usage', ['youtube.com', 'youtube-nocookie.com', 'ytimg.com', 'googlevideo.com']),
  s('哔哩哔哩', 'video', 'usage', ['bilibili.com', 'hdslb.com', 'biliapi.net']),
  s('Vimeo', 'video', 'usage', ['vimeo.com', 'vimeocdn.com']),
  s('腾讯视频', 'video', 'usage', ['v.qq.com']),
  s('优酷', 'video', 'usage', ['player.youku.com']),
  s('西瓜视频', 'video', 'usage', ['ixigua.com']),
  s('网易云音乐', 'video', 'usage', ['music.163.com']),
  s('Spotify', 'video', 'usage', ['open.spotify.com']),
  s('Google 地图', 'map', 'usage', [
    'maps.google.com',
    'maps.googleapis.com',
    'maps.gstatic.com',
    'google.com',
  ]),
  s('百度地图', 'map', 'usage', ['map.baidu.com', 'api.map.baidu.com']),
  s('高德地图', 'map', 'usage', ['amap.com']),
  s('OpenStreetMap', 'map', 'usage', ['openstreetmap.org', 'tile.openstreetmap.org']),
  s('Mapbox', 'map', 'usage', ['mapbox.com']),
  s('CodePen', 'code', 'nothing', ['codepen.io']),
  s('CodeSandbox', 'code', 'nothing', ['codesandbox.io']),
  s('JSFiddle', 'code', 'nothing', ['jsfiddle.net']),
  s('StackBlitz', 'code', 'nothing', ['stackblitz.com']),
  s('GitHub API', 'api', 'nothing', ['api.github.com', 'raw.githubusercontent.com']),
  // Comments: what a visitor writes to the site.
  s('Disqus', 'comments', 'messages', ['disqus.com', 'disquscdn.com']),
  s('utterances', 'comments', 'messages', ['utteranc.es']),
  s('giscus', 'comments', 'messages', ['giscus.app']),
  s('Valine / LeanCloud', 'backend', 'accounts', ['leancloud.cn', 'lncld.net', 'lncldglobal.com']),
  s('Twikoo', 'comments', 'messages', ['twikoo.js.org']),
  // Forms: messages to the site's owner (a password or a card number is not a message).
  s('Formspree', 'forms', 'messages', ['formspree.io']),
  s('Getform', 'forms', 'messages', ['getform.io']),
  s('Formcarry', 'forms', 'messages', ['formcarry.com']),
  s('Basin', 'forms', 'messages', ['usebasin.com']),
  s('FormSubmit', 'forms', 'messages', ['formsubmit.co']),
  s('FormKeep', 'forms', 'messages', ['formkeep.com']),
  s('Web3Forms', 'forms', 'messages', ['web3forms.com']),
  s('Static Forms', 'forms', 'messages', ['staticforms.xyz']),
  s('Form.taxi', 'forms', 'messages', ['form.taxi']),
  s('FabForm', 'forms', 'messages', ['fabform.io']),
  s('腾讯问卷', 'forms', 'messages', ['wj.qq.com']),
  s('金数据', 'forms', 'messages', ['jinshuju.net', 'jsj.top']),
  s('麦客', 'forms', 'messages', ['mikecrm.com']),
  s('问卷星', 'forms', 'messages', ['wjx.cn', 'wjx.top']),
  s('Google Forms', 'forms', 'messages', ['docs.google.com', 'forms.gle']),
  s('Mailchimp', 'forms', 'messages', ['mailchimp.com', 'list-manage.com']),
  s('EmailJS', 'forms', 'messages', ['api.emailjs.com']),
  // A Google Apps Script web app: the usual way a static page writes a sign-up into a Google Sheet.
  s('Google Apps Script', 'forms', 'messages', ['script.google.com']),
  // The site's own backend: sign-in with a password is what it is for.
  s('Firebase', 'backend', 'accounts', [
    'firebaseio.com',
    'firebaseapp.com',
    'identitytoolkit.googleapis.com',
    'securetoken.googleapis.com',
    'firestore.googleapis.com',
    'firebase.googleapis.com',
    'firebaseinstallations.googleapis.com',
  ]),
  s('Supabase', 'backend', 'accounts', ['supabase.co', 'supabase.in']),
  s('Appwrite', 'backend', 'accounts', ['appwrite.io']),
  s('腾讯云开发', 'backend', 'accounts', ['tcloudbaseapp.com', 'tcb.qcloud.la']),
  // Drops: where kits send what they took. No ordinary static page sends anything here.
  s('Telegram 机器人接口', 'chat-bot', 'drop', ['api.telegram.org'], /^\/bot/i),
  s('Discord Webhook', 'chat-bot', 'drop', ['discord.com', 'discordapp.com'], /^\/api\/(v\d+\/)?webhooks\//i),
  s('Slack Webhook', 'chat-bot', 'drop', ['hooks.slack.com']),
  s('钉钉机器人', 'chat-bot', 'drop', ['oapi.dingtalk.com'], /^\/robot\//i),
  s('企业微信机器人', 'chat-bot', 'drop', ['qyapi.weixin.qq.com'], /^\/cgi-bin\/webhook\//i),
  s('飞书机器人', 'chat-bot', 'drop', ['open.feishu.cn', 'open.larksuite.com'], /^\/open-apis\/bot\//i),
  s('粘贴板网站', 'paste', 'drop', [
    'pastebin.com',
    'paste.ee',
    'hastebin.com',
    'hastebin.skyra.pw',
    'dpaste.org',
    'dpaste.com',
    'ix.io',
    'termbin.com',
    'rentry.co',
    'rentry.org',
    'paste.rs',
    'paste.mozilla.org',
    'ghostbin.co',
    'justpaste.it',
    'controlc.com',
  ]),
  s('内网穿透或请求收集服务', 'tunnel', 'drop', [
    'ngrok.io',
    'ngrok.app',
    'ngrok-free.app',
    'ngrok-free.dev',
    'trycloudflare.com',
    'loca.lt',
    'localtunnel.me',
    'serveo.net',
    'localhost.run',
    'lhr.life',
    'pagekite.me',
    'telebit.io',
    'localxpose.io',
    'loclx.io',
    'pinggy.io',
    'pinggy.link',
    'bore.pub',
    'natapp.cc',
    'natappfree.cc',
    'cpolar.cn',
    'cpolar.top',
    'cpolar.io',
    'vicp.fun',
    'vicp.net',
    'vicp.io',
    'zicp.vip',
    'zicp.fun',
    'oicp.net',
    'oicp.vip',
    'frp.wtf',
    'webhook.site',
    'requestbin.net',
    'pipedream.net',
    'beeceptor.com',
    'burpcollaborator.net',
    'oastify.com',
    'interact.sh',
    'oast.fun',
    'oast.me',
    'oast.pro',
    'oast.live',
    'oast.site',
    'oast.online',
    'dnslog.cn',
    'ceye.io',
  ]),
];

const endsWithDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * The service a URL's host (and path, for services that are only some paths of a host) belongs
 * to; the most specific domain wins (`api.telegram.org/bot…` is a drop, `docs.google.com` a form).
 */
export function serviceOf(host: string, path = '/'): WellKnownService | null {
  const h = host.toLowerCase().replace(/\.$/, '');
  let best: WellKnownService | null = null;
  let bestLength = -1;
  for (const service of SERVICES) {
    if (service.path && !service.path.test(path)) continue;
    for (const d of service.domains) {
      // A path-bound service is more specific than a host-wide one of the same domain length.
      const length = d.length + (service.path ? 0.5 : 0);
      if (length > bestLength && endsWithDomain(h, d)) {
        best = service;
        bestLength = length;
      }
    }
  }
  return best;
}

/** serviceOf for a whole URL (absolute or protocol-relative); null when it does not parse. */
export function serviceOfUrl(url: string): WellKnownService | null {
  try {
    const u = new URL(url.startsWith('//') ? `http:${url}` : url);
    return serviceOf(u.hostname, u.pathname);
  } catch {
    return null;
  }
}

/** What a page may send: visits, messages, sign-ins (a password to the site's backend), or what is never ordinary elsewhere. */
export type DataKind =
  | 'usage'
  | 'message'
  | 'credential'
  | 'card'
  | 'id-number'
  | 'sms-code'
  | 'keystrokes'
  | 'clipboard';

/**
 * Whether sending this kind of data to the service is what it is for. Passwords go to the site's
 * own backend (Firebase Auth, Supabase) and nowhere else; card and ID numbers, SMS codes,
 * keystrokes and clipboard contents to no service at all: a static page has no business
 * collecting them for anyone.
 */
export function serviceAccepts(service: WellKnownService | null, data: DataKind): boolean {
  if (!service || service.receives === 'drop' || service.receives === 'nothing') return false;
  switch (data) {
    case 'usage':
      return true;
    case 'message':
      return service.receives === 'messages' || service.receives === 'accounts';
    case 'credential':
      return service.receives === 'accounts';
    default:
      return false;
  }
}
