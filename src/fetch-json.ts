/**
 * POSTs JSON and returns the parsed answer, or `null` on ANY failure: network error, timeout, non-2xx,
 * a body that is not JSON. Callers (recommendation, choose) fall back instead of throwing at the page.
 */
export async function postJson(url: string, authorization: string, body: unknown, timeoutMs: number): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      keepalive: true,
      signal: controller.signal,
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) return null;
    return (await response.json()) as unknown;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
