import { bindFields, detectDevice, EXPOSURE_EVENT, InstanceSlot, KEYS, LocalStore, SvcElement } from '../../src/plugin-api.js';
import type { Choice } from '../../src/index.js';
import { requestChoice, type Chooser } from './choice-batcher.js';
import { experienceStyles } from './experience-styles.js';

export type ExperienceStatus = 'loading' | 'ready' | 'empty' | 'error';

/** `detail` of `svc:experience`: what this element showed and why. */
export interface ExperienceEventDetail {
  name: string;
  status: ExperienceStatus;
  group?: string;
  variation?: string;
  body?: Record<string, unknown>;
  /** Why the fallback stayed: `timeout`, `no-choice`, `no-template`, `no-sdk`. */
  reason?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-experience': SvcExperience;
  }
  interface GlobalEventHandlersEventMap {
    'svc:experience': CustomEvent<ExperienceEventDetail>;
  }
  interface WindowEventMap {
    'svc:experience': CustomEvent<ExperienceEventDetail>;
  }
}

/**
 * What the snippet's loader leaves on an element it asked for (`svcAnswer`, a promise): the choice for the element's
 * name, null when the service chose nothing for it, undefined when no answer came.
 */
type LoaderAnswer = Choice | null | undefined;

const choosers = new InstanceSlot<Chooser>();
const store = new LocalStore();
/** Experiences remembered per browser (the oldest dropped past it): a page rarely runs more. */
const MAX_KNOWN = 50;

/** Remembers (or, without a variation, forgets) what `name` showed, for the loader to show in the next first paint. */
function remember(name: string, variation: string | undefined): void {
  // The variations this browser was last shown, by experience (KEYS.choices); unreadable, they start afresh.
  let known: Record<string, string> = {};
  try {
    const parsed = JSON.parse(store.get(KEYS.choices) ?? '{}') as unknown;
    if (typeof parsed === 'object' && parsed !== null) known = parsed as Record<string, string>;
  } catch {
    // not JSON: rewritten below
  }
  delete known[name];
  if (variation !== undefined) known[name] = variation;
  for (const old of Object.keys(known).slice(0, -MAX_KNOWN)) delete known[old];
  store.set(KEYS.choices, JSON.stringify(known));
}

/**
 * Set by the `experiences()` plugin: the instance elements use when none is given to them (the last set). Returns its
 * remover, which clears it only while it is still the one set.
 */
export function setDefaultChooser(chooser: Chooser | undefined): () => void {
  return choosers.set(chooser);
}

/**
 * `<svc-experience name="hero-banner" timeout="800">` shows its children (the fallback) until the Choose
 * API answers, then the `<template variation="…">` child of the assigned variation, or the plain
 * `<template>` child with `data-field` bindings filled from the choice's body — as text, never as HTML.
 * If no answer comes within `timeout` ms the fallback stays for this page view (no late flicker). An element
 * that got no choice because the visitor had not consented yet asks again once they accept (`svc:consent-change`).
 * The visitor counts as exposed only once shown the choice: the element asks the service to record no exposure and
 * reports one (an `Experiment Viewed` event, through the SDK's outbox) when it shows it; a kept fallback is none.
 * For a returning visitor the snippet's loader already shows, in the first paint, the variation this browser was
 * last shown: the element keeps it while it asks (however long the answer takes) and swaps only if the answer differs.
 * The loader also asks the Choose API for the element before it is defined, holding its box empty meanwhile: the
 * element takes that answer (`svcAnswer`) instead of asking again, and keeps the box held until the same deadline.
 *
 * @tagname svc-experience
 * @summary Shows its fallback until the Choose API answers, then the assigned variation's template.
 *
 * @attr name - The experience to ask the Choose API for; setting or changing it asks again.
 * @attr timeout - Anti-flicker budget in milliseconds (default 800), from when the loader asked (else from the first
 *   request): without an answer by then the fallback shows and stays (a known variation the loader showed stays
 *   instead, until the answer).
 * @attr status - Reflected, read-only: `loading` while asking (with `aria-busy="true"`), `ready` (a variation
 *   shows), `empty` (the fallback stays: timeout, no choice, or no matching template) or `error` (no SDK instance).
 *
 * @slot - The fallback content, shown in every state but `ready` (held hidden, its box kept, while the loader's
 *   answer is awaited). `<template variation="…">` children hold the
 *   variations and a plain `<template>` child the one filled from the choice's body; templates never render.
 * @slot content - Filled by the element itself with the chosen template's copy (a light-DOM
 *   `<div slot="content">`); shown in state `ready`. Not for the page's own content.
 *
 * @fires {CustomEvent<ExperienceEventDetail>} svc:experience - Each time the element settles on what it shows (bubbling, composed);
 *   `detail` is `{name, status, group?, variation?, body?, reason?}`, `reason` saying why the fallback stayed
 *   (`timeout`, `no-choice`, `no-template`, `no-sdk`).
 *
 * @cssprop [--svc-experience-display=block] - The host's `display`; `contents` gives the element no box of its own.
 *
 * @example
 * <svc-experience name="hero-banner">
 *   <h1>Welcome</h1>
 *   <template variation="bold"><h1>Big sale</h1></template>
 *   <template><h1 data-field="title"></h1></template>
 * </svc-experience>
 */
export class SvcExperience extends SvcElement {
  static override styles = experienceStyles;
  static observedAttributes = ['name', 'timeout', 'status'];

  /**
   * Anti-flicker budget in milliseconds.
   * @attr timeout
   * @default 800
   */
  declare timeout: number;
  /** The SDK instance to ask; default: the one the plugin registered, else `window.svc`. */
  declare svc: Chooser | undefined;
  #run = 0;
  /** `name` changed since the last update: the update asks for it (Lit's `changed.has('name')`). */
  #nameChanged = false;
  /** The one `<slot>` of the shadow root: the fallback's (the default) or, once a variation shows, `content`. */
  readonly #slot = document.createElement('slot');
  /** The instance the last answer came from: the one the exposure is reported to. */
  #asked: Chooser | undefined;
  /** The variation the loader showed in the first paint, until the first answer confirms or corrects it. */
  #known: string | undefined;
  #content: HTMLElement | undefined;
  /** The snippet's loader asked for this element before it was defined: its answer, and when it began to wait. */
  #handoff: { name: string | null; answer: Promise<LoaderAnswer>; since: number } | undefined;
  #noChoice = false;
  // Waiting for consent, the SDK answers no choice; once the visitor accepts, the experience is asked for again.
  readonly #onConsent = (e: WindowEventMap['svc:consent-change']): void => {
    if (this.#noChoice && e.detail.action === 'accept') void this.#resolve();
  };

  constructor() {
    super();
    // `declare`d, not initialised: a value the page set before the element was defined stays.
    this.timeout ??= 800;
    // The shadow root holds one slot for good; update() only names it.
    this.renderChildren(this.#slot);
  }

  /**
   * The experience to ask for.
   * @attr name
   * @reflect
   * @default ''
   */
  get name(): string {
    return this.getAttribute('name') ?? '';
  }

  set name(value: string) {
    if (value == null) this.removeAttribute('name');
    else this.setAttribute('name', value);
  }

  /**
   * Where the element is; only the element sets it.
   * @attr status
   * @reflect
   * @default 'loading'
   */
  get status(): ExperienceStatus {
    return (this.getAttribute('status') ?? 'loading') as ExperienceStatus;
  }

  set status(value: ExperienceStatus) {
    this.setAttribute('status', value);
  }

  // The first `name` and each different one are asked for at the next update; `timeout` is read, never written back.
  override attributeChangedCallback(attribute: string, old: string | null, value: string | null): void {
    if (attribute === 'name' && value !== old) this.#nameChanged = true;
    if (attribute === 'timeout') this.timeout = Number(value);
    super.attributeChangedCallback(attribute, old, value);
  }

  override connectedCallback(): void {
    // A page may set `name` or `status` before the element is defined: that own property hides the accessor, so it
    // is taken off and set again through it.
    for (const key of ['name', 'status'] as const) {
      if (Object.hasOwn(this, key)) {
        const value = this[key];
        delete (this as Partial<Record<typeof key, string>>)[key];
        (this as Record<typeof key, string>)[key] = value;
      }
    }
    // The status is on the element from the start, `loading` until it settles.
    if (!this.hasAttribute('status')) this.status = 'loading';
    super.connectedCallback();
    window.addEventListener('svc:consent-change', this.#onConsent);
    // The snippet's loader showed the variation this browser was last shown, in the first paint: it stays shown
    // while the service is asked, and goes only if the answer differs.
    const known = this.#content ? null : this.querySelector<HTMLElement>(':scope > [slot="content"][data-svc-variation]');
    if (known) {
      this.#content = known;
      this.#known = known.dataset.svcVariation;
    }
    // The loader asked the Choose API for this element before it was defined (before the first paint): its answer
    // is used instead of asking again, and the box it held (`data-svc-wait`) stays held until the same deadline.
    const asked = (this as { svcAnswer?: unknown }).svcAnswer;
    if (asked instanceof Promise && !this.#handoff) {
      this.#handoff = { name: this.getAttribute('name'), answer: asked, since: Number(this.dataset.svcWait) || performance.now() };
    }
  }

  disconnectedCallback(): void {
    window.removeEventListener('svc:consent-change', this.#onConsent);
  }

  protected update(): void {
    if (this.#nameChanged) {
      this.#nameChanged = false;
      if (this.name) void this.#resolve();
    }
    // A variation shows once rendered, and while loading when the loader showed the known one.
    this.#slot.name = this.#content ? 'content' : '';
  }

  async #resolve(): Promise<void> {
    const run = ++this.#run;
    const known = this.#known;
    this.#known = undefined;
    if (known === undefined) this.#dropContent();
    this.status = 'loading';
    this.setAttribute('aria-busy', 'true');
    const name = this.name;
    // The wait began when the loader asked, when it did (the deadline is the one its style keeps).
    const handoff = this.#handoff?.name === name ? this.#handoff : undefined;
    this.#handoff = undefined;
    const deadline = handoff ? handoff.since + this.timeout : Infinity;
    // With the known variation on screen there is no fallback to keep: the answer confirms or corrects it, whenever.
    const outcome = await (known !== undefined ? this.#ask(name, handoff) : Promise.race([
      this.#ask(name, handoff, deadline),
      new Promise<'timeout'>((resolve) => setTimeout(resolve, handoff ? deadline - performance.now() : this.timeout, 'timeout')),
    ]));
    if (run !== this.#run) return; // the name changed meanwhile
    this.removeAttribute('aria-busy');
    // The known variation the answer confirms stays as it is (the same node: nothing is painted again).
    const confirmed = known !== undefined && typeof outcome === 'object' && outcome.variation === known && this.#content !== undefined;
    if (!confirmed) this.#dropContent();
    if (outcome === undefined) remember(name, undefined); // enrolled no more: nothing to show next time
    if (outcome === 'timeout') return this.#settle({ name, status: 'empty', reason: 'timeout' });
    if (outcome === 'no-sdk') return this.#settle({ name, status: 'error', reason: 'no-sdk' });
    if (!outcome) return this.#settle({ name, status: 'empty', reason: 'no-choice' });
    const detail: ExperienceEventDetail = { name, status: 'ready', body: outcome.body };
    if (outcome.group !== undefined) detail.group = outcome.group;
    if (outcome.variation !== undefined) detail.variation = outcome.variation;
    if (confirmed) bindFields(this.#content as HTMLElement, outcome.body);
    else {
      const content = this.#renderChoice(outcome);
      if (!content) return this.#settle({ ...detail, status: 'empty', reason: 'no-template' });
      this.#content = content;
      this.append(content);
    }
    this.#settle(detail);
    this.#reportShown(name, outcome);
  }

  /**
   * Reports the exposure now that the visitor is shown the choice, through the SDK's outbox (lossless, sent once):
   * the Choose answer recorded none, so a visitor who keeps the fallback is counted in no variation.
   */
  #reportShown(name: string, choice: Choice): void {
    const data: Record<string, unknown> = { experience: name, device: detectDevice() };
    if (choice.variation !== undefined) data.variation = choice.variation;
    // The page's campaign, which results break exposures down by (the rest of the URL stays on the page).
    const query = new URLSearchParams(location.search);
    for (const key of ['utm_source', 'utm_medium']) if (query.get(key)) data[key] = query.get(key);
    this.#asked?.track?.({ eventTitle: EXPOSURE_EVENT, data });
    remember(name, choice.variation);
  }

  /**
   * The choice for `name`: the loader's answer when it has one (a timeout once `deadline` has passed, as it has for
   * the page), else the SDK's.
   */
  async #ask(name: string, handoff?: { answer: Promise<LoaderAnswer> }, deadline = Infinity): Promise<Choice | undefined | 'no-sdk' | 'timeout'> {
    const answered = handoff ? await handoff.answer : undefined;
    const chooser = await this.#chooser();
    this.#asked = chooser;
    // Past the deadline the loader's style has shown the fallback: it stays, whenever the answer came.
    if (answered !== undefined) return performance.now() >= deadline ? 'timeout' : answered || undefined;
    return chooser ? requestChoice(chooser, name) : 'no-sdk';
  }

  /**
   * The instance to ask; when the SDK's script tag comes after this element, waits (up to `timeout`) for the plugin
   * to register one, or for `svc:ready` to announce `window.svc`.
   */
  async #chooser(): Promise<Chooser | undefined> {
    return this.svc ?? choosers.current ?? (window as { svc?: Chooser }).svc ?? Promise.race([
      choosers.when(this.timeout),
      new Promise<Chooser | undefined>((resolve) => {
        window.addEventListener('svc:ready', () => resolve((window as { svc?: Chooser }).svc), { once: true });
      }),
    ]);
  }

  #dropContent(): void {
    this.#content?.remove();
    this.#content = undefined;
  }

  #renderChoice(choice: Choice): HTMLElement | undefined {
    const template =
      (choice.variation !== undefined && this.querySelector<HTMLTemplateElement>(`:scope>template[variation="${CSS.escape(choice.variation)}"]`)) ||
      this.querySelector<HTMLTemplateElement>(':scope>template:not([variation])');
    if (!template) return undefined;
    const wrapper = document.createElement('div');
    wrapper.slot = 'content';
    wrapper.style.display = 'contents';
    wrapper.append(template.content.cloneNode(true));
    bindFields(wrapper, choice.body);
    return wrapper;
  }

  #settle(detail: ExperienceEventDetail): void {
    delete this.dataset.svcWait;
    this.status = detail.status;
    this.#noChoice = detail.reason === 'no-choice';
    this.dispatchEvent(new CustomEvent('svc:experience', { detail, bubbles: true, composed: true }));
  }
}
