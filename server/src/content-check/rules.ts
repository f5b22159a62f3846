/**
 * The content check's rules, one entry each: what it finds (kind), how severe, whether it is a
 * risk (decides the report's level and the review badge) or a usability problem (the uploader's
 * to fix), which files it applies to and its message. Adding a rule is one entry here and one
 * example in rules.spec.ts (a test fails for a rule without one). The detection itself lives in
 * the scanner of the file type (html.ts, js.ts, css.ts, text.ts, index.ts for the site).
 */
import type { ContentCheckCategory, ContentCheckKind, ContentCheckSeverity } from '@sitehall/contracts';
import { messages } from '@sitehall/contracts/messages';

const m = messages.review.contentCheck;

export type AppliesTo = 'site' | 'html' | 'svg' | 'js' | 'css' | 'text';

export interface Rule {
  kind: ContentCheckKind;
  severity: ContentCheckSeverity;
  category: ContentCheckCategory;
  appliesTo: readonly AppliesTo[];
  /** Chinese, with {placeholders} filled from the finding's values. */
  message: string;
}

const risk = (
  kind: ContentCheckKind,
  severity: ContentCheckSeverity,
  appliesTo: AppliesTo[],
  message: string,
): Rule => ({ kind, severity, category: 'risk', appliesTo, message });
const usability = (
  kind: ContentCheckKind,
  severity: ContentCheckSeverity,
  appliesTo: AppliesTo[],
  message: string,
): Rule => ({ kind, severity, category: 'usability', appliesTo, message });

const MARKUP: AppliesTo[] = ['html', 'svg'];
const SCRIPT: AppliesTo[] = ['html', 'svg', 'js'];

export const RULES = {
  // Usability: the site works badly, the uploader fixes it.
  'site.missing-entry': usability('missing_entry', 'medium', ['site'], m.missingEntry),
  // The same, when a page lies in a subfolder (a whole project uploaded: dist/index.html).
  'site.missing-entry-nested': usability('missing_entry', 'medium', ['site'], m.missingEntryNested),
  // Info, and only where sites live under /sites/{name}/ (docs/content-check.md "Where sites
  // live"): such addresses load through the sites host's root rescue; some pages still break.
  'ref.root-absolute': usability('root_absolute_link', 'info', ['html', 'svg', 'css'], m.rootAbsolute),
  'ref.missing-file': usability('missing_file', 'low', ['html', 'svg', 'css'], m.missingFile),
  'ref.missing-file-case': usability('missing_file', 'low', ['html', 'svg', 'css'], m.missingFileCase),
  'ref.own-computer': usability('missing_file', 'low', ['html', 'svg', 'css'], m.localComputerFile),
  'file.html-in-other-type': usability('type_mismatch', 'medium', ['text'], m.htmlInOtherType),
  'file.invalid-json': usability('type_mismatch', 'low', ['text'], m.invalidJson),
  'file.not-html': usability('type_mismatch', 'low', ['html'], m.notHtml),
  'file.large': usability('large_file', 'info', ['site'], m.largeFile),

  // What the site loads and embeds.
  'html.external-script': risk('external_script', 'low', MARKUP, m.externalScript),
  'html.external-stylesheet': risk('external_stylesheet', 'info', ['html', 'css'], m.externalStylesheet),
  'html.external-frame': risk('external_frame', 'low', MARKUP, m.externalFrame),
  'html.embed-frame': risk('external_frame', 'info', MARKUP, m.externalFrame),
  'html.hidden-frame': risk('hidden_frame', 'high', MARKUP, m.hiddenFrame),
  'html.meta-refresh': risk('redirect', 'high', ['html'], m.metaRefresh),
  'link.executable': risk('executable_download', 'high', SCRIPT, m.executableDownload),
  'svg.script': risk('svg_script', 'medium', ['svg'], m.svgScript),

  // Forms, scored by what they collect, where they send it and what the page says.
  'form.phishing': risk('password_form', 'high', MARKUP, m.phishingForm),
  'form.password-external': risk('password_form', 'high', MARKUP, m.passwordFormExternal),
  'form.sensitive-to-service': risk('password_form', 'high', MARKUP, m.sensitiveToFormService),
  'form.password-suspicious': risk('password_form', 'medium', MARKUP, m.passwordForm),
  'form.server-script': risk('external_form', 'medium', MARKUP, m.formServerScript),
  'form.password-demo': risk('password_form', 'low', MARKUP, m.passwordFormDemo),
  'form.external-post': risk('external_form', 'medium', MARKUP, m.externalForm),
  'form.external-get': risk('external_form', 'info', MARKUP, m.externalFormGet),
  'form.service': risk('external_form', 'info', MARKUP, m.formService),

  // Scripts: where they send data and how they hide it.
  'js.redirect': risk('redirect', 'medium', SCRIPT, m.scriptRedirect),
  'js.redirect-on-action': risk('redirect', 'low', SCRIPT, m.scriptRedirectOnAction),
  'js.redirect-hidden': risk('redirect', 'high', SCRIPT, m.scriptRedirectHidden),
  'js.history-trap': risk('redirect', 'high', SCRIPT, m.historyTrap),
  'js.network-sink': risk('network_sink', 'medium', SCRIPT, m.networkSink),
  'js.network-sink-input': risk('network_sink', 'high', SCRIPT, m.networkSinkWithInput),
  'js.exfil-endpoint': risk('exfil_endpoint', 'high', SCRIPT, m.exfilEndpoint),
  'js.decoded-execution': risk('obfuscation', 'medium', SCRIPT, m.decodedExecution),
  'js.eval-encoded': risk('obfuscation', 'medium', SCRIPT, m.evalEncodedString),
  'js.packer': risk('obfuscation', 'medium', SCRIPT, m.packer),
  'js.char-codes': risk('obfuscation', 'low', SCRIPT, m.charCodes),
  'js.hex-escapes': risk('obfuscation', 'low', SCRIPT, m.hexEscapes),
  'js.crypto-miner': risk('crypto_miner', 'high', SCRIPT, m.cryptoMiner),

  // Page text.
  'text.scam': risk('scam_text', 'low', ['html'], m.scamText),
  'text.scam-contact': risk('scam_text', 'medium', ['html'], m.scamTextWithContact),
  'text.scam-payment': risk('scam_text', 'high', ['html'], m.scamTextWithPayment),

  // The check itself.
  'site.check-incomplete': risk('check_incomplete', 'medium', ['site'], m.checkIncomplete),
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;
export const RULE_IDS = Object.keys(RULES) as RuleId[];
