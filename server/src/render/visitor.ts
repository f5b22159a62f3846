/**
 * The render's visitor (docs/render.md "The visitor"): once the page has loaded, time passes on the
 * page's fake clock (delayed redirects, overlays and sends happen), then, in the page and in every
 * frame of the site's own origin, every field gets a canary typed key by key and is left (blur),
 * every list gets an option chosen, every checkbox is ticked and every group of radio buttons gets
 * one; the main button is pressed and the forms are submitted; keys are pressed with no field
 * focused (only a listener on the whole page sees them); then time passes again. Every step is
 * bounded and any failure of one (a field gone, a page that navigated away) ends it quietly: what
 * the page sent until then is what counts.
 */
import { randomInt } from 'node:crypto';
import type { ElementHandle, Frame, JSHandle, Page } from 'playwright-core';
import { type CanaryKind, type CanaryValues, canaryForField } from './canaries.js';

/** Fields typed into at most (over all frames), and how long one step of the visit may take. */
const MAX_FIELDS = 20;
/** Rounds of filling fields and pressing the main button (fields a button brings are filled next). */
const ROUNDS = 3;
const STEP_TIMEOUT_MS = 1_000;
/** Frames of the site's own origin a visitor acts in, the page included. */
const MAX_FRAMES = 5;
/** The fake clock's jumps: a minute in all before the visit, half a minute after it. */
const BEFORE_VISIT_MS = [10_000, 20_000, 30_000];
const AFTER_VISIT_MS = [5_000, 25_000];
/** Real time left for the page to react to one jump (its requests reach the route handler). */
const SETTLE_MS = 60;
/** How the findings name the place those keys were pressed. */
export const FREE_KEYS_FIELD = '页面空白处';

interface FieldInfo {
  index: number;
  /** `text`-like fields are typed into; the others are chosen. */
  choice: 'select' | 'checkbox' | 'radio' | null;
  type: string;
  label: string;
  describedAs: string;
  /** A field with nothing in it (typed into again in a later round). */
  empty: boolean;
}

/** Every control a visitor fills, in document order: `FIELD_LIST`'s index of each. */
const FIELD_LIST = `[...document.querySelectorAll('input, textarea, select')]`;

/**
 * The visible, editable fields, lists, checkboxes and radio buttons of the document. A checkbox or
 * radio button drawn by its label (the input itself hidden) counts when the label is visible.
 */
const FIELDS_SCRIPT = `(() => {
  const skip = new Set(['hidden','file','submit','button','reset','image','range','color']);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return r.width >= 1 && r.height >= 1 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const out = [];
  ${FIELD_LIST}.forEach((el, index) => {
    const type = el.tagName === 'SELECT' ? 'select'
      : (el.getAttribute('type') || (el.tagName === 'TEXTAREA' ? 'textarea' : 'text')).toLowerCase();
    if (skip.has(type) || el.disabled || el.readOnly) return;
    const labels = [...(el.labels || [])];
    const choice = type === 'select' || type === 'checkbox' || type === 'radio' ? type : null;
    if (!shown(el) && !(choice && choice !== 'select' && labels.some(shown))) return;
    const label = (labels[0] && labels[0].textContent || '').trim();
    const words = [el.name, el.id, el.placeholder, el.getAttribute('autocomplete'),
      el.getAttribute('aria-label'), label, el.className].filter(Boolean).join(' ');
    out.push({ index, choice, type, label: (el.name || el.id || el.placeholder || label || type).slice(0, 60), describedAs: words,
      empty: choice ? false : el.value === '' });
  });
  return out;
})()`;

/**
 * Chooses as a visitor would: a list's first real option (enabled, with a value) unless one is
 * chosen already; a checkbox ticked; a radio button when none of its group is. The page's input
 * and change handlers run (a click does both for checkboxes and radios).
 */
const CHOOSE = `(el) => {
  if (!el) return;
  if (el.tagName === 'SELECT') {
    if (el.value !== '' && el.selectedIndex > 0) return;
    const i = [...el.options].findIndex((o) => !o.disabled && o.value !== '' && o.index > 0);
    const k = i >= 0 ? i : [...el.options].findIndex((o) => !o.disabled && o.value !== '');
    if (k < 0) return;
    el.selectedIndex = k;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return;
  }
  if (el.checked) return;
  if (el.type === 'radio' && el.name) {
    const group = el.form ? el.form.elements.namedItem(el.name) : document.getElementsByName(el.name);
    if (group && [...(group.length !== undefined ? group : [group])].some((r) => r.checked)) return;
  }
  el.click();
}`;

const MAIN_BUTTON_WORDS =
  /登录|登陆|提交|确定|确认|下一步|立即|领取|验证|支付|注册|绑定|解冻|查询|log\s*in|sign\s*in|submit|continue|next|verify|confirm|pay/i;

const BUTTON_LIST = `[...document.querySelectorAll('button, input[type=submit], input[type=button], a[role=button], [onclick]')]`;

/** The index in `BUTTON_LIST` of the button a visitor would press, or -1. */
const MAIN_BUTTON_SCRIPT = `((words) => {
  const list = ${BUTTON_LIST};
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

/**
 * Submits the document's form `i` through its submit handlers (requestSubmit), or past validation
 * a visitor would have satisfied (the DOM's own submit: a field named "submit" shadows the form's).
 */
const SUBMIT_SCRIPT = `((i) => {
  const f = document.querySelectorAll('form')[i];
  if (!f) return;
  if (f.checkValidity()) f.requestSubmit();
  else HTMLFormElement.prototype.submit.call(f);
})`;

async function passTime(page: Page, jump: (ms: number) => Promise<void>, steps: number[]): Promise<void> {
  for (const ms of steps) {
    if (page.isClosed()) return;
    await jump(ms);
    await settle();
  }
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/**
 * The page and the frames a visitor of it acts in: those of the page's own origin, and the
 * `srcdoc`/`about:blank` frames such a frame made (they share its origin). Frames of other hosts
 * are not loaded by the render (their requests are aborted).
 */
export function sameOriginFrames(page: Page): Frame[] {
  const main = page.mainFrame();
  const origin = originOf(main.url());
  const own = (f: Frame | null): boolean => {
    if (!f) return false;
    if (f === main) return true;
    const url = f.url();
    if (url === 'about:srcdoc' || url === 'about:blank') return own(f.parentFrame());
    return originOf(url) === origin;
  };
  return page
    .frames()
    .filter((f) => !f.isDetached() && own(f))
    .slice(0, MAX_FRAMES);
}

/** The element `index` of `list` (a script giving an array) in the frame, or null. */
async function elementAt(frame: Frame, list: string, index: number): Promise<ElementHandle | null> {
  const all: JSHandle = await frame.evaluateHandle(list);
  try {
    return (await all.getProperty(String(index))).asElement();
  } finally {
    void all.dispose().catch(() => {});
  }
}

/**
 * Lets time pass, fills every field, list, checkbox and radio group of the page and its
 * same-origin frames, presses keys outside any field, presses the main button and submits the
 * forms. `fields` learns which field got each canary (its name, id, placeholder or label).
 */
export async function visit(
  page: Page,
  opts: {
    deadline: number;
    /** Moves the page's fake clock by `ms` (stealth.ts `RenderClock.jump`). */
    passTime: (ms: number) => Promise<void>;
    /** This render's canaries (canaries.ts drawCanaries). */
    canaries: CanaryValues;
    fields: Map<CanaryKind, string>;
    /** Whether the page listens for keys on the whole page (render-page.ts LISTEN_PROBE). */
    listensForKeys?: () => boolean;
    /** Told just before the visitor presses the main button or submits a form. */
    pressing?: () => void;
  },
): Promise<void> {
  const { fields } = opts;
  await passTime(page, opts.passTime, BEFORE_VISIT_MS);
  const url = page.url();
  const stay = () => opts.deadline - Date.now() > 0 && !page.isClosed() && page.url() === url;
  let typed = 0;
  const mouse = new Mouse(page);
  try {
    await mouse.wander();
    // Rounds: the fields there, then the main button and the forms; then the fields that came
    // since (a login that asks the password after 下一步), and again, three rounds at most.
    for (let round = 0; round < ROUNDS && stay(); round++) {
      const frames = sameOriginFrames(page);
      let filled = 0;
      for (const frame of frames) {
        if (!stay()) break;
        const found = (await frame.evaluate(FIELDS_SCRIPT).catch(() => [])) as FieldInfo[];
        for (const f of found) {
          if (!stay() || typed >= MAX_FIELDS) break;
          // A later round fills what is new and empty only (lists and boxes were chosen in the first).
          if (round > 0 && !f.empty) continue;
          if (f.choice) {
            await frame.evaluate(`(${CHOOSE})(${FIELD_LIST}[${f.index}])`).catch(() => {});
            continue;
          }
          const el = await elementAt(frame, FIELD_LIST, f.index).catch(() => null);
          if (!el) continue;
          typed++;
          filled++;
          const kind = canaryForField(f.type, f.describedAs);
          const value = kind ? opts.canaries[kind] : '12';
          await mouse.over(el);
          await el.focus();
          if (kind && !fields.has(kind)) fields.set(kind, f.label);
          // Key by key, as a person types: keydown, keypress, input and keyup for every character.
          await typeLikeAPerson(page, value, stay);
          await within(
            el.evaluate((e) => (e as unknown as { blur(): void }).blur()),
            STEP_TIMEOUT_MS,
          );
        }
      }
      if (round > 0 && filled === 0) break;
      for (const frame of frames) {
        if (!stay()) break;
        const button = (await frame
          .evaluate(`${MAIN_BUTTON_SCRIPT}(${JSON.stringify(MAIN_BUTTON_WORDS.source)})`)
          .catch(() => -1)) as number;
        if (button >= 0) {
          const el = await elementAt(frame, BUTTON_LIST, button).catch(() => null);
          if (el) await mouse.over(el);
          opts.pressing?.();
          await el?.click({ timeout: STEP_TIMEOUT_MS, force: true }).catch(() => {});
          await settle();
        }
        // Each form in turn; one that navigates the page away ends the list.
        const forms = stay()
          ? ((await frame.evaluate(`document.querySelectorAll('form').length`).catch(() => 0)) as number)
          : 0;
        for (let i = 0; i < Math.min(forms, 5) && stay(); i++) {
          if (frame.isDetached()) break;
          opts.pressing?.();
          await frame.evaluate(`${SUBMIT_SCRIPT}(${i})`).catch(() => {});
          await settle();
        }
      }
    }
    // Keys pressed with no field focused: a form's handlers never see them, a keylogger does.
    // Last, so a slow machine spends the visit's time on the forms first; only on a page that
    // listens for keys on the whole page or its body (a key costs a round trip to the browser).
    const listens =
      opts.listensForKeys?.() ||
      (await page
        .evaluate(
          `[document.body, document.documentElement].some((e) => e && ['onkeydown', 'onkeypress', 'onkeyup'].some((a) => e.hasAttribute(a)))`,
        )
        .catch(() => false));
    if (stay() && listens) {
      await page.evaluate(
        'document.activeElement && document.activeElement.blur && document.activeElement.blur()',
      );
      fields.set('keystrokes', FREE_KEYS_FIELD);
      // The canary twice, enough to fill a logger's buffer.
      await typeLikeAPerson(page, opts.canaries.keystrokes.repeat(2), stay);
    }
  } catch {
    // The page navigated, closed or hung: what it sent so far is recorded.
  }
  await passTime(page, opts.passTime, AFTER_VISIT_MS);
}

/**
 * Types `text` one key at a time, 40 to 110 ms apart (real time: the events' own time stamps are
 * the browser's, whatever the page's clock says), as fast typists do. `keyboard.type` at once put
 * 1–5 ms between keys, which an outside review's kit measured to hide from the render.
 */
async function typeLikeAPerson(page: Page, text: string, stay: () => boolean): Promise<void> {
  for (const ch of text) {
    if (!stay()) return;
    await page.keyboard.type(ch);
    await new Promise((r) => setTimeout(r, 40 + randomInt(71)));
  }
}

/**
 * The visitor's mouse: it moves in steps along a path to what it acts on, from where it was, as a
 * hand does (mousemove after mousemove); a click alone moved it once, straight to the spot, which
 * a page can count (an outside review's kit sent nothing with fewer than three moves).
 */
class Mouse {
  #x = 200 + randomInt(400);
  #y = 150 + randomInt(300);

  constructor(private readonly page: Page) {}

  /** A few moves over the page, as a visitor reads it before acting. */
  async wander(): Promise<void> {
    for (let i = 0; i < 2; i++) await this.#to(100 + randomInt(800), 100 + randomInt(500));
  }

  /** Onto the element, a little off its centre. */
  async over(el: ElementHandle): Promise<void> {
    const box = await el.boundingBox().catch(() => null);
    if (!box) return;
    await this.#to(
      box.x + box.width * (0.3 + Math.random() * 0.4),
      box.y + box.height * (0.3 + Math.random() * 0.4),
    );
  }

  async #to(x: number, y: number): Promise<void> {
    // A slight curve: through a point off the straight line, in 6 to 12 steps.
    const mx = (this.#x + x) / 2 + (randomInt(81) - 40);
    const my = (this.#y + y) / 2 + (randomInt(81) - 40);
    const steps = 3 + randomInt(4);
    await this.page.mouse.move(mx, my, { steps }).catch(() => {});
    await this.page.mouse.move(x, y, { steps }).catch(() => {});
    this.#x = x;
    this.#y = y;
  }
}

/** Resolves when `p` settles or after `ms`, whichever comes first (p's outcome is ignored). */
function within(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  return Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() =>
    clearTimeout(timer),
  );
}
