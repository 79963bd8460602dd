// Small helpers to drive the admin console (Lit elements in shadow roots) from puppeteer-core, and to read what it
// downloads. Selectors use puppeteer's deep combinator `>>>`, which looks into every shadow root below its left side.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';

/** How long one thing on screen may take to appear (a load, a render after an API answer). */
export const UI_TIMEOUT = 20_000;

/**
 * The element `selector` names, once it is there; fails naming the selector. Polled with `page.$` rather than
 * `waitForSelector`: for a `>>>` selector puppeteer waits on a MutationObserver of the document, which never sees a
 * change inside a shadow root, so a Lit re-render would go unnoticed until something else moved.
 */
export async function find(page: Page, selector: string, timeout = UI_TIMEOUT): Promise<ElementHandle<Element>> {
  const until = Date.now() + timeout;
  for (;;) {
    const handle = await page.$(selector).catch(() => null);
    if (handle) return handle;
    if (Date.now() > until) throw new Error(`nothing matched ${selector} within ${timeout} ms (page ${page.url()})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Clicks the element (a real mouse click at its centre, scrolled into view). */
export async function click(page: Page, selector: string): Promise<void> {
  const handle = await find(page, selector);
  await handle.click();
  await handle.dispose();
}

/** Types `value` into an input as a whole: sets it and fires `input` (what Lit's `@input` listens to). */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  const handle = await find(page, selector);
  await handle.evaluate((el, v) => {
    (el as HTMLInputElement).value = v;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }, value);
  await handle.dispose();
}

/** Picks an option of a select: sets its value and fires `change`. */
export async function pick(page: Page, selector: string, value: string): Promise<void> {
  const handle = await find(page, selector);
  const picked = await handle.evaluate((el, v) => {
    const select = el as HTMLSelectElement;
    select.value = v;
    select.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
    return select.value;
  }, value);
  await handle.dispose();
  if (picked !== value) throw new Error(`${selector} has no option ${value}`);
}

/** The text of the element (its textContent, spaces collapsed). */
export async function textOf(page: Page, selector: string): Promise<string> {
  const handle = await find(page, selector);
  const text = await handle.evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
  await handle.dispose();
  return text;
}

/** The texts of every element `selector` names now (none: an empty list). */
export async function textsOf(page: Page, selector: string): Promise<string[]> {
  const handles = await page.$$(selector);
  const texts = await Promise.all(handles.map((h) => h.evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim())));
  await Promise.all(handles.map((h) => h.dispose()));
  return texts;
}

/**
 * Polls `check` until it returns a value other than undefined, at most `attempts` times `intervalMs` apart; fails with
 * `what` and the last value seen (`describe`) otherwise. Bounded, and no assertion on how long it took.
 */
export async function eventually<T>(
  what: string, check: () => Promise<T | undefined>, { attempts = 150, intervalMs = 200, last = (): string => '' } = {},
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const seen = last();
  throw new Error(`${what}: not after ${attempts} attempts ${intervalMs} ms apart${seen ? ` (last seen: ${seen})` : ''}`);
}

/** Waits until the element's text matches `pattern`; answers the text. */
export async function waitForText(page: Page, selector: string, pattern: RegExp): Promise<string> {
  let text = '';
  return eventually(`${selector} to read ${pattern}`, async () => {
    text = await textOf(page, selector).catch(() => '');
    return pattern.test(text) ? text : undefined;
  }, { attempts: 100, last: () => text });
}

/** Signs in on the console's sign-in form (organization and project come prefilled from the page's query). */
export async function signIn(page: Page, key: string): Promise<void> {
  const form = 'svc-admin >>> svc-admin-sign-in';
  await click(page, `${form} >>> details summary`);
  await fill(page, `${form} >>> #key`, key);
  await click(page, `${form} >>> #key-submit`);
  await find(page, 'svc-admin >>> nav');
}

/** Signs in on the console's sign-in form with an email and password (organization and project prefilled or typed). */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  const form = 'svc-admin >>> svc-admin-sign-in';
  await fill(page, `${form} >>> #email`, email);
  await fill(page, `${form} >>> #password`, password);
  await click(page, `${form} >>> form.password button[type="submit"]`);
  await find(page, 'svc-admin >>> nav');
}

/** The file once the browser finished writing it (Chromium writes `<name>.crdownload` first). */
export async function downloaded(dir: string, name: string): Promise<string> {
  const file = join(dir, name);
  return eventually(`the download ${name}`, async () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined), { attempts: 100, intervalMs: 100 });
}

/** RFC 4180 text as rows of cells (quoted cells may hold commas, doubled quotes and line breaks); a BOM is dropped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      row.push(cell), rows.push(row), (row = []), (cell = '');
    } else cell += c;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows;
}

/** CSV rows as objects keyed by the header row. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header = [], ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}
