// Test-only track endpoint for the delivery chaos test (test/outbox-chaos.test.ts), mounted in the
// web-test-runner dev server under /chaos/. It answers at random the way a bad day looks: 500, 503, 429
// with Retry-After, answers that come after the client gave up, connections dropped, otherwise 200. Like
// the real service it deduplicates by eventId, and it counts every receipt so the test can show the
// duplicates that retries cost.

/** How often each answer is given; the rest are 200. */
const ODDS = [
  ['500', 0.12],
  ['503', 0.1],
  ['429', 0.08],
  ['timeout', 0.05],
  ['drop', 0.05],
];

export function chaosMiddleware({ holdMs = 1500 } = {}) {
  let state = fresh();
  function fresh() {
    return { requests: 0, receipts: 0, seen: new Set(), answers: {} };
  }
  function pick() {
    let r = Math.random();
    for (const [name, p] of ODDS) {
      if (r < p) return name;
      r -= p;
    }
    return '200';
  }
  function record(batch) {
    for (const event of batch) {
      state.receipts++;
      state.seen.add(event.eventId);
    }
  }

  return async function chaos(ctx, next) {
    if (!ctx.path.startsWith('/chaos/')) return next();
    if (ctx.path === '/chaos/reset') {
      state = fresh();
      ctx.body = { ok: true };
      return;
    }
    if (ctx.path === '/chaos/stats') {
      const { requests, receipts, seen, answers } = state;
      ctx.body = { requests, receipts, unique: seen.size, duplicates: receipts - seen.size, answers, ids: [...seen] };
      return;
    }
    if (ctx.method !== 'POST' || !ctx.path.endsWith('/track')) return next();
    const chunks = [];
    for await (const c of ctx.req) chunks.push(c);
    let batch;
    try {
      batch = JSON.parse(Buffer.concat(chunks).toString('utf8')).batch;
    } catch {
      ctx.status = 400;
      ctx.body = { error: { code: 'invalid_json', message: 'The body is not JSON.' } };
      return;
    }
    state.requests++;
    const answer = pick();
    state.answers[answer] = (state.answers[answer] ?? 0) + 1;
    switch (answer) {
      case '500':
      case '503':
        ctx.status = Number(answer);
        ctx.body = { error: { code: 'unavailable', message: 'Try again later.' } };
        return;
      case '429':
        ctx.status = 429;
        // Seconds half of the time, an HTTP date the other half (RFC 9110 10.2.3).
        ctx.set('Retry-After', Math.random() < 0.5 ? '1' : new Date(Date.now() + 1000).toUTCString());
        ctx.body = { error: { code: 'rate_limited', message: 'Slow down.' } };
        return;
      case 'timeout':
        // Stored, but the answer comes after the client gave up: the resend is a duplicate.
        record(batch);
        await new Promise((resolve) => setTimeout(resolve, holdMs));
        ctx.body = { accepted: batch.length, duplicates: 0 };
        return;
      case 'drop':
        // Half stored before the connection dies (the answer is lost), half not stored at all.
        if (Math.random() < 0.5) record(batch);
        ctx.respond = false;
        ctx.req.socket.destroy();
        return;
      default: {
        const before = state.seen.size;
        record(batch);
        const accepted = state.seen.size - before;
        ctx.body = { accepted, duplicates: batch.length - accepted };
      }
    }
  };
}
