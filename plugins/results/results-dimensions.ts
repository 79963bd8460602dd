// The dimensions results can be broken down by, in words: the section headings and the "Break down by" select.
// Any dimension the service accepts passes through; these are the ones a reader picks from the select.

/** The select's dimensions, in its order (`''`: none, the overall results only). */
export const BREAKDOWNS: readonly { value: string; label: string }[] = [
  { value: '', label: 'None' },
  { value: 'device', label: 'Device' },
  { value: 'browser', label: 'Browser' },
  { value: 'visitor', label: 'New or returning' },
  { value: 'utm_source', label: 'utm_source' },
  { value: 'utm_medium', label: 'utm_medium' },
];

/** `attribute:<key>`: a profile attribute, by its key. */
const ATTRIBUTE = 'attribute:';

/**
 * A dimension's name as a heading says it: `Device`, `New or returning`, `Profile attribute plan`; one the element
 * does not know is shown as it is named.
 */
export function dimensionLabel(name: string): string {
  if (name.startsWith(ATTRIBUTE)) return `Profile attribute ${name.slice(ATTRIBUTE.length)}`;
  return BREAKDOWNS.find((b) => b.value && b.value === name)?.label ?? name;
}

/** The select's options: the known dimensions, and one set from outside (`attribute:plan`) when not among them. */
export function breakdownOptions(current: string): { value: string; label: string }[] {
  if (BREAKDOWNS.some((b) => b.value === current)) return [...BREAKDOWNS];
  return [...BREAKDOWNS, { value: current, label: dimensionLabel(current) }];
}
