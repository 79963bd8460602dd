// What the console's browser tests share: finding elements through shadow roots, waiting on the running service,
// typing into fields, signing in. The service is the real one web-test-runner starts (test/helpers/service-under-test.mjs).
import { sendKeys } from '@web/test-runner-commands';
import type { Me } from './access.js';
import { AdminApi } from './admin-api.js';
import type { SvcAdmin } from './admin-app.js';
import { saveSession } from './admin-session.js';
import type { SvcAdminSignIn } from './sign-in-form.js';

export const ADMIN_KEY = 'admtest.s3cret';
export const acme = `${location.origin}/v1/acme`;
export const shop = `${acme}/projects/shop`;

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

/** The console's sign-in form, once the console has found nobody signed in. */
export async function signInForm(app: SvcAdmin): Promise<SvcAdminSignIn> {
  const form = await until(() => find<SvcAdminSignIn>(app, 'svc-admin-sign-in'), 'the sign-in form');
  await form.updateComplete;
  return form;
}

/** Signs in through the form's "Use an admin key instead" (the key typed as a person would). */
export async function signIn(app: SvcAdmin, key = ADMIN_KEY, project = 'shop'): Promise<void> {
  const form = await signInForm(app);
  fill(get<HTMLInputElement>(form, '#organization'), 'acme');
  fill(get<HTMLInputElement>(form, '#project'), project);
  get<HTMLElement>(form, 'details summary').click();
  await form.updateComplete;
  get<HTMLInputElement>(form, '#key').focus();
  await sendKeys({ type: key });
  get<HTMLButtonElement>(form, '#key-submit').click();
}

/** Signs in through the form's email and password. */
export async function signInWithPassword(app: SvcAdmin, email: string, password: string, project = 'shop'): Promise<void> {
  const form = await signInForm(app);
  fill(get<HTMLInputElement>(form, '#organization'), 'acme');
  fill(get<HTMLInputElement>(form, '#project'), project);
  fill(get<HTMLInputElement>(form, '#email'), email);
  get<HTMLInputElement>(form, '#password').focus();
  await sendKeys({ type: password });
  get<HTMLButtonElement>(form, 'form.password button[type="submit"]').click();
}

/** A client of acme/`project` signed in with `key` (this browser's session cookie then is the key's). */
export async function keyApi(key = ADMIN_KEY, project = 'shop'): Promise<AdminApi> {
  const api = new AdminApi({ organization: 'acme', project });
  await api.signInWithKey(key);
  return api;
}

/**
 * Signs this browser in with `key` and keeps acme/`project` as this tab's, as a console signed in earlier would:
 * a console added next opens the project (after asking the service who is signed in).
 */
export async function openConsole(key = ADMIN_KEY, project = 'shop'): Promise<void> {
  await keyApi(key, project);
  saveSession({ organization: 'acme', project });
}

/** Ends this browser's session, whichever test organization it is of: a test starts signed out. */
export async function signOutEverywhere(): Promise<void> {
  for (const org of ['acme', 'ssotest']) {
    const me = await fetch(`${location.origin}/v1/${org}/me`, { cache: 'no-store' });
    if (!me.ok) continue;
    const { csrfToken } = await me.json() as Me;
    if (csrfToken) await fetch(`${location.origin}/v1/${org}/session`, { method: 'DELETE', headers: { 'X-CSRF-Token': csrfToken } });
  }
}

/** An admin's request to the organization's own endpoints (people, keys), with the file's admin key. */
export async function orgFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const type: Record<string, string> = init.body === undefined ? {} : { 'Content-Type': 'application/json' };
  return fetch(`${acme}/${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...type, ...init.headers } });
}

/** Adds a person (by the admin key) and makes them an invitation; `token` is the link's last part. */
export async function invitedPerson(role = 'admin', projects?: string[]): Promise<{ email: string; url: string; token: string }> {
  const email = `${unique('person')}@example.com`;
  const put = await orgFetch(`people/${encodeURIComponent(email)}`, { method: 'PUT', body: JSON.stringify({ role, ...(projects ? { projects } : {}) }) });
  if (put.status !== 201) throw new Error(`PUT person: ${put.status} ${await put.text()}`);
  const made = await orgFetch(`people/${encodeURIComponent(email)}/invitation`, { method: 'POST', body: '{}' });
  if (made.status !== 201) throw new Error(`POST invitation: ${made.status} ${await made.text()}`);
  const { url } = await made.json() as { url: string };
  return { email, url, token: url.slice(url.indexOf('#/invitation/') + '#/invitation/'.length) };
}

/**
 * A person with a password, made as a person would be: added, invited, the invitation accepted. Accepting signs this
 * browser in as them; that session is ended again, so the test starts signed out.
 */
export async function personWithPassword(role = 'admin', projects?: string[]): Promise<{ email: string; password: string }> {
  const { email, token } = await invitedPerson(role, projects);
  const password = `pw-${crypto.randomUUID()}`;
  const accepted = await fetch(`${acme}/invitations/accept`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token, password }),
  });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${await accepted.text()}`);
  const { csrfToken } = await accepted.json() as Me;
  await fetch(`${acme}/session`, { method: 'DELETE', headers: { 'X-CSRF-Token': csrfToken ?? '' } });
  return { email, password };
}

/** Removes people a test made. */
export async function removePeople(emails: string[]): Promise<void> {
  for (const email of emails.splice(0)) await orgFetch(`people/${encodeURIComponent(email)}`, { method: 'DELETE' });
}

/** Every value of this origin's sessionStorage and localStorage, as `key=value`. */
export const storedValues = (): string[] => [sessionStorage, localStorage].flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`));

/**
 * Records the URLs of the requests whose URL contains `part`, on their way to the service (nothing is answered in
 * their place); `stop()` puts the page's fetch back and forgets them.
 */
export function recordRequests(part: string): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const realFetch = window.fetch;
  window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes(part)) sent.push(url);
    return realFetch(input, init);
  };
  return { sent, stop: () => { window.fetch = realFetch; sent.length = 0; } };
}
