/**
 * The base of the elements a CMS page gets from dist/service.js (`<svc-experience>`, `<svc-recommendations>`,
 * `<svc-consent>`): an open shadow root holding the class's styles, and one render per microtask however many
 * changes ask for it, with Lit's `updateComplete` to await it. It is Lit's update cycle without Lit's templates or
 * reactive properties: every visitor downloads these elements within a byte budget, and Lit alone is 6 KB gzipped.
 * A subclass keeps its state in attributes and fields, calls `requestUpdate()` when one changes, and builds its
 * shadow DOM with `h()` in `update()` (text always as text nodes: nothing is parsed as HTML).
 * @example
 * class Hello extends SvcElement {
 *   static override styles = css`:host{display:block}`;
 *   static observedAttributes = ['name'];
 *   protected update(): void { this.renderChildren(h('p', {}, 'Hello ', this.getAttribute('name'))); }
 * }
 */
export abstract class SvcElement extends HTMLElement {
  /** The shadow root's CSS, written as css`…` so that the build minifies it. */
  static styles = '';
  readonly renderRoot: ShadowRoot;
  /** The `<style>` carrying `styles` where constructable style sheets are missing (Safari before 16.4). */
  readonly #style: HTMLStyleElement[] = [];
  #pending: Promise<void> | undefined;

  constructor() {
    super();
    const root = (this.renderRoot = this.attachShadow({ mode: 'open' }));
    const styles = (this.constructor as typeof SvcElement).styles;
    try {
      root.adoptedStyleSheets = [sheetOf(styles)];
    } catch {
      const style = document.createElement('style');
      style.textContent = styles;
      this.#style.push(style);
    }
  }

  connectedCallback(): void {
    this.requestUpdate();
  }

  /** Renders again; a subclass that turns attributes into properties overrides it with the callback's arguments. */
  attributeChangedCallback(_name: string, _old: string | null, _value: string | null): void {
    this.requestUpdate();
  }

  /** Renders once, after this task's other changes, while the element is in the document. */
  requestUpdate(): void {
    this.#pending ??= Promise.resolve().then(() => {
      this.#pending = undefined;
      if (this.isConnected) this.update();
    });
  }

  /** Resolves once no render is pending (renders that a render asked for included), as Lit's does. */
  get updateComplete(): Promise<boolean> {
    return (async () => {
      while (this.#pending) await this.#pending;
      return true;
    })();
  }

  /** Brings the shadow root up to date with the element's state. */
  protected abstract update(): void;

  /** Replaces the shadow root's content with `nodes` (its styles stay). */
  protected renderChildren(...nodes: (Node | string)[]): void {
    this.renderRoot.replaceChildren(...this.#style, ...nodes);
  }
}

const sheets = /* @__PURE__ */ new Map<string, CSSStyleSheet>();

/** One constructable style sheet per distinct CSS text, shared by every instance of the classes using it. */
function sheetOf(cssText: string): CSSStyleSheet {
  let sheet = sheets.get(cssText);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(cssText);
    sheets.set(cssText, sheet);
  }
  return sheet;
}

/** Static CSS as a string; a tag so that the build can find and minify it in `*-styles.ts` files. */
export const css = (strings: TemplateStringsArray): string => strings.join('');

type Child = Node | string | null | undefined | false;

/**
 * An element with attributes and children. An attribute whose value is `null`, `undefined` or `false` is left out,
 * `true` sets it empty; a function under `on<type>` listens to `<type>`. Children that are strings become text nodes,
 * and `null`, `undefined` and `false` children are skipped.
 * @example h('a', { part: 'link', href: url, onclick: go }, h('span', { part: 'title' }, title))
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attributes: Record<string, unknown> = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value as EventListener);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== null && value !== undefined && value !== false) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  return element;
}
