// What the auto-tracker may say about an element, and what it must never say.

const MAX_TEXT = 200;

/** Inside a `data-svc-no-capture` subtree (the mark is inherited): nothing about it is sent. */
export function isExcluded(el: Element): boolean {
  return el.closest('[data-svc-no-capture]') !== null;
}

// Read through attributes, not properties: a form's named fields shadow its properties (Shopify's cart form
// has `<input name="id">`, so `form.id` is that input).
function attr(el: Element, name: string): string {
  return el.getAttribute(name)?.trim() ?? '';
}

function classesOf(el: Element): string[] {
  return attr(el, 'class').split(/\s+/).filter(Boolean);
}

/** `form#checkout`, `nav.main > a.link`: up to three levels, stopping at the nearest id. */
export function shortSelector(el: Element): string {
  const parts: string[] = [];
  for (let e: Element | null = el; e && e !== document.body && parts.length < 3; e = e.parentElement) {
    const id = attr(e, 'id');
    parts.unshift(id ? `${e.localName}#${CSS.escape(id)}` : e.localName + classesOf(e).slice(0, 2).map((c) => `.${CSS.escape(c)}`).join(''));
    if (id) break;
  }
  return parts.join(' > ');
}

/** Tag, id, classes and selector: the markup, never what a visitor typed. */
export function describe(el: Element): Record<string, unknown> {
  const info: Record<string, unknown> = { tag: el.localName, classes: classesOf(el), selector: shortSelector(el) };
  const id = attr(el, 'id');
  if (id) info.id = id;
  return info;
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair: half an emoji is
 * ill-formed Unicode, which the service refuses (and the event with it).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** Whitespace-collapsed text, at most 200 characters. */
export function boundedText(text: string): string {
  return cutText(text.replace(/\s+/g, ' ').trim(), MAX_TEXT);
}

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

export function isField(el: Element): el is Field {
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
}

/**
 * A field's value only when the field itself opts in with `data-svc-capture`; password and hidden inputs
 * never, opted in or not (hidden inputs carry tokens and ids the visitor never chose to share).
 */
export function capturedValue(el: Field): string | undefined {
  if (!el.hasAttribute('data-svc-capture') || el.type === 'password' || el.type === 'hidden' || isExcluded(el)) return undefined;
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') && !el.checked) return '';
  return cutText(el.value, MAX_TEXT);
}
