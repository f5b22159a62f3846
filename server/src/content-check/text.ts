/**
 * The words model: a small, documented set of keywords (Chinese first) for scam pages and
 * phishing forms (docs/decisions/review.md "Content check"). A topic counts when a page uses at least
 * three of its distinct words: one word is an ordinary page (a shop says 支付, a blog says 中奖),
 * three of one family are a pitch. Contact IDs and payment QR codes turn a pitch into a scam page.
 */

export const SCAM_TOPICS: ReadonlyArray<{ topic: string; words: readonly string[] }> = [
  {
    topic: '赌博',
    words: [
      '博彩',
      '赌场',
      '百家乐',
      '老虎机',
      '真人荷官',
      '彩金',
      '体育投注',
      '投注',
      '下注',
      '棋牌',
      '电子游艺',
      '葡京',
      '威尼斯人',
      '首存',
      '返水',
      '开户送',
      '注册送',
      '出款',
      '提款秒到',
      '赔率',
      '娱乐城',
      '捕鱼',
      '斗地主赢',
      'casino',
      'baccarat',
      'jackpot',
      'betting',
      'free spins',
    ],
  },
  {
    topic: '彩票',
    words: [
      '时时彩',
      '六合彩',
      '北京赛车',
      'pk10',
      '快三',
      '幸运飞艇',
      '彩票计划',
      '计划群',
      '包中',
      '稳赚',
      '必中',
      '开奖',
      '彩票',
      '导师带单',
      '回血',
      '倍投',
      '跟单',
      'lottery',
    ],
  },
  {
    topic: '投资',
    words: [
      '高收益',
      '日收益',
      '月收益',
      '稳赚不赔',
      '保本保息',
      '零风险',
      '投资回报',
      '虚拟币',
      'usdt',
      '挖矿收益',
      '带单',
      '内幕消息',
      '翻倍',
      '原始股',
      '外汇平台',
      '资金盘',
      '静态收益',
      '动态收益',
      'guaranteed return',
      'double your',
      'crypto giveaway',
    ],
  },
  {
    topic: '收款',
    words: [
      '刷单',
      '返利',
      '佣金',
      '垫付',
      '日结',
      '点赞赚钱',
      '充值',
      '扫码支付',
      '转账',
      '保证金',
      '解冻费',
      '手续费',
      '退款理赔',
      '征信',
      '代付',
      '押金',
      '激活费',
      '提现',
    ],
  },
];

/** No two optional runs of spaces touch: `qq` and 4,000 spaces took 82 s (cubic). */
const CONTACT_ID =
  /(?:微信|微信号|v信|薇信|威信|vx|wx|wechat|加v)\s*(?:[:：号]\s*)?[a-z][-_a-z0-9]{5,19}|(?:qq|扣扣|企鹅)\s*(?:(?:群号|群|号)\s*)?(?:[:：]\s*)?[1-9]\d{4,10}|(?:telegram|tg|飞机)\s*[:：@]\s*@?[a-z0-9_]{4,32}|t\.me\/[a-z0-9_]{4,32}/i;
const PAYMENT_QR =
  /收款码|付款码|收款二维码|支付二维码|扫码支付|扫码付款|wxpay|alipay[-_]?qr|(?:^|[/_.-])(?:skm|qrcode|qr)(?:[-_.]|$)|二维码/i;

export interface ScamSignals {
  topics: string[];
  words: string[];
  extras: string[];
}

/** The scam topics of a page's text (lower-cased), with its contact IDs and payment QR hints. */
export function scamSignals(text: string, qrHints: readonly string[]): ScamSignals {
  const lower = text.toLowerCase();
  const topics: string[] = [];
  const words: string[] = [];
  for (const t of SCAM_TOPICS) {
    const found = t.words.filter((w) => lower.includes(w));
    if (found.length >= 3) {
      topics.push(t.topic);
      words.push(...found.slice(0, 4));
    }
  }
  const extras: string[] = [];
  if (qrHints.some((h) => PAYMENT_QR.test(h))) extras.push('收款二维码');
  if (CONTACT_ID.test(text)) extras.push('联系方式（微信/QQ/Telegram 号）');
  return { topics, words, extras };
}

/** Brands a phishing page imitates: banks, payment and messaging services (Chinese and English). */
const BRANDS =
  /银行|工商银行|建设银行|农业银行|中国银行|招商银行|交通银行|邮储|浦发|信用卡中心|支付宝|alipay|微信支付|财付通|云闪付|银联|unionpay|qq|腾讯|tencent|微信|wechat|网易|163邮箱|qq邮箱|steam|apple\s?id|icloud|paypal|visa|mastercard|microsoft|outlook|office\s?365|gmail|google|facebook|instagram|whatsapp|telegram|bank|netflix|amazon|淘宝|京东|抖音|快手|社保|税务|个人所得税|metamask|trust\s?wallet|coinbase|binance|币安|ledger|phantom|imtoken|tokenpocket|小狐狸钱包/i;

/** What phishing pages say to hurry a victim. */
const LURES =
  /账户已锁定|账号已锁定|账号异常|账户异常|冻结|解冻|验证身份|身份验证|身份认证|安全验证|中奖|领取|补贴|退税|退款|异常登录|即将停用|即将过期|已过期|限时|立即验证|重新激活|升级认证|unusual (?:activity|sign-?in)|(?:verify|validate) your (?:account|identity|wallet)|(?:re-?)?synchroni[sz]e your wallet|钱包(?:验证|同步|升级)|account (?:has been )?(?:locked|suspended|limited)|confirm your (?:identity|account)|suspended/i;

const CARD_FIELD =
  /卡号|银行卡|信用卡|card.?(?:no|num)|cardnumber|cc-?(?:number|num|exp|csc)|cvv|cvc|安全码|有效期/i;
const ID_FIELD = /身份证|id.?card|id.?no\b|idnumber|sfz|证件号/i;
const PIN_FIELD = /支付密码|取款密码|交易密码|pin\b/i;
/** A crypto wallet's recovery phrase or private key: whoever has it has the wallet's funds. */
const WALLET_SECRET_FIELD =
  /助记词|私钥|recovery.?phrase|seed.?phrase|secret.?phrase|mnemonic|private.?key|keystore/i;

export function brandIn(text: string): string | null {
  return BRANDS.exec(text)?.[0] ?? null;
}

export function lureIn(text: string): string | null {
  return LURES.exec(text)?.[0] ?? null;
}

/** What kind of sensitive field a field's attributes and label text name, if any. */
export function sensitiveField(type: string, described: string): string | null {
  if (type === 'password' || PIN_FIELD.test(described)) return '密码';
  if (CARD_FIELD.test(described)) return '银行卡号';
  if (ID_FIELD.test(described)) return '身份证号';
  if (WALLET_SECRET_FIELD.test(described)) return '钱包助记词或私钥';
  return null;
}
