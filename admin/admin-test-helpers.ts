// What the console's browser tests share: finding elements through shadow roots, waiting on the running service,
// typing into fields, signing in. The service is the real one web-test-runner starts (test/helpers/service-under-test.mjs).
import { sendKeys } from '@web/test-runner-commands';
import type { SvcAdmin } from './admin-app.js';
import type { SvcAdminSignIn } from './sign-in-form.js';

export const ADMIN_KEY = 'admtest.s3cret';
export const shop = `${location.origin}/v1/acme/projects/shop`;

export const unique = (prefix: string): string => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** The element at the end of `path`, each selector applied inside the shadow root of the element before it. */
export function find<T extends Element = HTMLElement>(root: Element, ...path: string[]): T | null {
  let node: Element | null = root;
  for (const selector of path) {
    node = (node.shadowRoot ?? node).querySelector(selector);
    if (!node) return null;
  }
  return node as T;
}

export function get<T extends Element = HTMLElement>(root: Element, ...path: string[]): T {
  const node = find<T>(root, ...path);
  if (!node) throw new Error(`not found: ${path.join(' → ')}`);
  return node;
}

/** Polls `condition` until it holds, a bounded number of times (the service answers in milliseconds). */
export async function until<T>(condition: () => T | null | undefined | false, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = condition();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Sets a field as typing would (Lit's @input handlers read `target.value`). */
export function fill(field: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

export const text = (el: Element | null): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Every attribute value in `root`'s tree and the shadow trees below it. */
export function attributeValues(root: Element): string[] {
  const values: string[] = [];
  const walk = (node: Element): void => {
    for (const a of node.attributes) values.push(a.value);
    for (const child of node.shadowRoot ? [...node.shadowRoot.children, ...node.children] : node.children) walk(child);
  };
  walk(root);
  return values;
}

export async function adminFetch(path: string, init: RequestInit = {}): Promise<Response> {
  // A JSON content type only with a body: the service refuses an empty body declared as JSON (a DELETE would fail).
  const type: Record<string, string> = init.body === undefined ? {} : { 'Content-Type': 'application/json' };
  return fetch(`${shop}/${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...type, ...init.headers } });
}

/** The console's address back to the page's own (no screen named): a test starts on the experience list. */
export function resetAddress(): void {
  history.replaceState(null, '', location.pathname + location.search);
}

export async function signIn(app: SvcAdmin, key = ADMIN_KEY): Promise<void> {
  const form = await until(() => find<SvcAdminSignIn>(app, 'svc-admin-sign-in'), 'the sign-in form');
  await form.updateComplete;
  fill(get<HTMLInputElement>(form, '#organization'), 'acme');
  fill(get<HTMLInputElement>(form, '#project'), 'shop');
  get<HTMLInputElement>(form, '#key').focus();
  await sendKeys({ type: key });
  get<HTMLButtonElement>(form, 'button[type="submit"]').click();
}

