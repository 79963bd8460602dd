/**
 * Fills a cloned `<template>` from server data, as TEXT only: `data-field="title"` sets textContent, so a
 * title like `<img onerror=…>` shows as those characters and never becomes markup. Dotted paths reach into
 * nested objects (`data-field="price.amount"`).
 */
export function bindText(root: ParentNode, data: Record<string, unknown>): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-field]')) {
    el.textContent = textOf(valueAt(data, el.dataset.field ?? ''));
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
