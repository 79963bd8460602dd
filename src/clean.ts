/** Drops `undefined` members so the JSON sent and the DOM event detail carry only what was given. */
export function clean<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}
