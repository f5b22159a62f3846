/**
 * The render's visitor (docs/render.md "The visitor"): once the page has loaded, time passes on the
 * page's fake clock (delayed redirects, overlays and sends happen), every field gets a canary typed
 * key by key and is left (blur), the page's main button is pressed and its forms are submitted,
 * then time passes again. Every step is bounded and any failure of one (a field gone, a page that
 * navigated away) ends the visit quietly: what the page sent until then is what counts.
 */
import type { Page } from 'playwright-core';
import { CANARIES, type CanaryKind, canaryForField } from './canaries.js';

/** Fields typed into at most, and how long one step of the visit may take. */
const MAX_FIELDS = 20;
const STEP_TIMEOUT_MS = 1_000;
/** The fake clock's jumps: a minute in all before the visit, half a minute after it. */
const BEFORE_VISIT_MS = [10_000, 20_000, 30_000];
const AFTER_VISIT_MS = [5_000, 25_000];
/** Real time left for the page to react to one jump (its requests reach the route handler). */
const SETTLE_MS = 60;

interface FieldInfo {
  index: number;
  type: string;
  label: string;
  describedAs: string;
}

/** The visible, editable inputs and text areas of the page, in document order. */
const FIELDS_SCRIPT = `(() => {
  const skip = new Set(['hidden','checkbox','radio','file','submit','button','reset','image','range','color']);
  const out = [];
  document.querySelectorAll('input, textarea').forEach((el, index) => {
    const type = (el.getAttribute('type') || (el.tagName === 'TEXTAREA' ? 'textarea' : 'text')).toLowerCase();
    if (skip.has(type) || el.disabled || el.readOnly) return;
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width < 1 || r.height < 1 || style.visibility === 'hidden' || style.display === 'none') return;
    const label = (el.labels && el.labels[0] && el.labels[0].textContent || '').trim();
    const words = [el.name, el.id, el.placeholder, el.getAttribute('autocomplete'),
      el.getAttribute('aria-label'), label, el.className].filter(Boolean).join(' ');
    out.push({ index, type, label: (el.name || el.id || el.placeholder || label || type).slice(0, 60), describedAs: words });
  });
  return out;
})()`;

const MAIN_BUTTON_WORDS =
  /登录|登陆|提交|确定|确认|下一步|立即|领取|验证|支付|注册|绑定|解冻|查询|log\s*in|sign\s*in|submit|continue|next|verify|confirm|pay/i;

/** The index among candidate buttons of the one a visitor would press, or -1. */
const MAIN_BUTTON_SCRIPT = `((words) => {
  const list = [...document.querySelectorAll('button, input[type=submit], input[type=button], a[role=button], [onclick]')];
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  let best = -1;
  list.forEach((el, i) => {
    if (best >= 0 || !visible(el)) return;
    const text = (el.textContent || el.value || el.getAttribute('aria-label') || '').trim();
    if (new RegExp(words, 'i').test(text)) best = i;
  });
  if (best < 0) best = list.findIndex((el) => visible(el) && (el.type === 'submit' || el.tagName === 'BUTTON'));
  return best;
})`;

const BUTTONS = 'button, input[type=submit], input[type=button], a[role=button], [onclick]';

async function passTime(page: Page, steps: number[]): Promise<void> {
  for (const ms of steps) {
    if (page.isClosed()) return;
    await page.clock.fastForward(ms).catch(() => {});
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
}

/**
 * Lets time pass, types canaries into every field, presses the main button, submits the forms.
 * `fields` learns which field got each canary (its name, id, placeholder or label) as it is typed.
 */
export async function visit(
  page: Page,
  opts: { deadline: number; fields: Map<CanaryKind, string> },
): Promise<void> {
  const { fields } = opts;
  const timeLeft = () => opts.deadline - Date.now();
  await passTime(page, BEFORE_VISIT_MS);
  const url = page.url();
  try {
    const found = (await page.evaluate(FIELDS_SCRIPT)) as FieldInfo[];
    for (const f of found.slice(0, MAX_FIELDS)) {
      if (timeLeft() <= 0 || page.url() !== url) break;
      const kind = canaryForField(f.type, f.describedAs);
      const value = kind ? CANARIES[kind] : '12';
      const field = page.locator('input, textarea').nth(f.index);
      await field.focus({ timeout: STEP_TIMEOUT_MS });
      if (kind && !fields.has(kind)) fields.set(kind, f.label);
      // Key by key, as a person types: keydown, keypress, input and keyup for every character.
      await page.keyboard.type(value);
      await field.evaluate((el) => (el as unknown as { blur(): void }).blur(), undefined, {
        timeout: STEP_TIMEOUT_MS,
      });
      if (kind && !fields.has(kind)) fields.set(kind, f.label);
    }
    if (timeLeft() > 0 && page.url() === url) {
      const button = (await page.evaluate(
        `${MAIN_BUTTON_SCRIPT}(${JSON.stringify(MAIN_BUTTON_WORDS.source)})`,
      )) as number;
      if (button >= 0) {
        await page
          .locator(BUTTONS)
          .nth(button)
          .click({ timeout: STEP_TIMEOUT_MS, force: true })
          .catch(() => {});
        await new Promise((r) => setTimeout(r, SETTLE_MS));
      }
    }
    // Each form in turn, through its submit handlers (requestSubmit), or past validation a
    // visitor would have satisfied; one that navigates the page away ends the list.
    const forms = page.url() === url ? await page.locator('form').count() : 0;
    for (let i = 0; i < Math.min(forms, 5) && timeLeft() > 0 && page.url() === url; i++) {
      await page
        .locator('form')
        .nth(i)
        .evaluate(
          (form) => {
            // The DOM's own submit: a field named "submit" shadows the form's.
            type Form = { checkValidity(): boolean; requestSubmit(): void };
            const dom = globalThis as unknown as { HTMLFormElement: { prototype: { submit(): void } } };
            const f = form as unknown as Form;
            if (f.checkValidity()) f.requestSubmit();
            else dom.HTMLFormElement.prototype.submit.call(f);
          },
          undefined,
          { timeout: STEP_TIMEOUT_MS },
        )
        .catch(() => {});
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    }
  } catch {
    // The page navigated, closed or hung: what it sent so far is recorded.
  }
  await passTime(page, AFTER_VISIT_MS);
}
