// Reads an IAB TCF v2 CMP's decision through its public API, `__tcfapi('addEventListener', 2, cb)`.

export interface TcData {
  eventStatus?: string;
  gdprApplies?: boolean;
  listenerId?: number;
  purpose?: { consents?: Record<string, boolean> };
}

export type TcfApi = (command: string, version: number, callback: (data: TcData, success: boolean) => void, parameter?: unknown) => void;

export function tcfApi(): TcfApi | undefined {
  const api = (window as { __tcfapi?: TcfApi }).__tcfapi;
  return typeof api === 'function' ? api : undefined;
}

const all = (consents: Record<string, boolean>, ids: number[]): boolean => ids.every((id) => consents[id] === true);

/**
 * TCF purposes to our categories: storage (1) with measurement (7, 8, 9) is analytics; ads (2, 3, 4) is
 * marketing; personalised content (5, 6) is personalization. Outside the GDPR everything is allowed.
 */
export function categoriesFromTcf(data: TcData, categories: readonly string[]): Record<string, boolean> {
  const consents = data.purpose?.consents ?? {};
  const allowed: Record<string, boolean> = {
    necessary: true,
    analytics: data.gdprApplies === false || all(consents, [1, 8, 9]),
    marketing: data.gdprApplies === false || all(consents, [1, 2, 3, 4]),
    personalization: data.gdprApplies === false || all(consents, [1, 5, 6]),
  };
  return Object.fromEntries(categories.map((c) => [c, allowed[c] ?? data.gdprApplies === false]));
}

/** Calls `onDecision` when the CMP has loaded a decision or the visitor has made one; returns the remover. */
export function listenToTcf(api: TcfApi, onDecision: (data: TcData) => void): () => void {
  let listenerId: number | undefined;
  api('addEventListener', 2, (data, success) => {
    listenerId = data?.listenerId ?? listenerId;
    if (success && (data.eventStatus === 'tcloaded' || data.eventStatus === 'useractioncomplete')) onDecision(data);
  });
  return () => {
    if (listenerId !== undefined) api('removeEventListener', 2, () => {}, listenerId);
  };
}
