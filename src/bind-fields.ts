// Attributes whose value the browser follows as a URL: a bound value must be http(s) or relative there.
const URL_ATTRIBUTE = /^(href|src|srcset|action|formaction|poster|data|xlink:href)$/;
// Never bound: event handlers and srcdoc would turn server text into script or HTML; style into CSS.
const BLOCKED_ATTRIBUTE = /^(on|srcdoc$|style$)/;

/**
 * Fills a cloned `<template>` from server data, as TEXT only, never as markup:
 * - `data-field="title"` sets textContent, so a title like `<img onerror=…>` shows as those characters;
 * - `data-field-<attribute>="field"` sets that attribute (`data-field-href="url"`, `data-field-alt="title"`).
 *   URL attributes keep only http(s) and relative URLs: anything else (`javascript:`, `data:`, `vbscript:`…)
 *   leaves the attribute out. `on*`, `srcdoc` and `style` are never bound.
 * Dotted paths reach into nested objects (`data-field="price.amount"`).
 */
export function bindFields(root: ParentNode, data: Record<string, unknown>): void {
  for (const el of root.querySelectorAll('*')) {
    for (const { name, value } of [...el.attributes]) {
      const target = name.slice(11);
      const text = textOf(valueAt(data, value));
      if (name === 'data-field') el.textContent = text;
      else if (!name.startsWith('data-field-') || BLOCKED_ATTRIBUTE.test(target)) continue;
      else if (!URL_ATTRIBUTE.test(target) || safeUrl(text)) el.setAttribute(target, text);
      else el.removeAttribute(target);
    }
  }
}

export function valueAt(data: Record<string, unknown>, path: string): unknown {
  let value: unknown = data;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Primitives as text; objects, arrays and missing values as nothing. */
export function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/**
 * True for a non-empty http(s) or relative URL. The browser's own parser decides, so what it would strip
 * (surrounding spaces and control characters, tabs and newlines inside `java\tscript:`) and upper case
 * (`JAVASCRIPT:`) cannot smuggle another scheme past the check.
 */
export function safeUrl(url: string): boolean {
  try {
    return url !== '' && /^https?:$/.test(new URL(url, document.baseURI).protocol);
  } catch {
    return false;
  }
}
