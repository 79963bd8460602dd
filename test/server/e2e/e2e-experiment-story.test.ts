// End to end, a product team's story with one experiment, on SQLite and PostgreSQL: the real service (buildApp +
// listen, its own database) serves the admin console; Debian's Chromium drives it (sign in, create the metrics and the
// experiment, start it, change its weights, read its results, download them as CSV), while the test sends the
// visitors' traffic over HTTP as browsers would (Choose, then track). In the second phase one variation shows errors
// and the service's guardrail watch stops the experiment by itself; the console and the API both say so. Before it
// starts, the team adds two webhooks in the console, to receivers in this process on 127.0.0.1 (its own service and a
// Slack channel's stand-in): the stop reaches both, signed, with the guardrail's numbers and the link to the results.
// No socket of this process connects anywhere but 127.0.0.0/8 (a hook under every connect fails the step otherwise).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import type { AuditEntry, AutomaticStop, Experience } from '../../../admin/experience.js';
import type { Metric } from '../../../admin/metric.js';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../../wire/api/webhook-schema.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { WEBHOOK_EVENT_TYPES, type WebhookPayload } from '../../../wire/webhook-events.js';
import {
  click, csvRecords, downloaded, eventually, fill, find, pick, signIn, textOf, textsOf, waitForText,
} from '../helpers/console-driver.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/free-port.js';
import { startReceiver, verified, type Receiver } from '../helpers/webhook-receiver.js';
import { loopbackConnectionsOnly } from '../webhooks/loopback-connections-only.js';

const guard = loopbackConnectionsOnly();
after(() => guard.restore());

const REPO = join(import.meta.dirname, '..', '..', '..');
const missing = ['dist/svc-admin.js'].filter((f) => !existsSync(join(REPO, f)));
if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
const skip = missing.length > 0 ? `needs ${missing.join(' and ')} (run \`npm run build\`; Chromium from Debian's package)` : false;

const BASE = '/v1/acme/projects/shop';
const ADMIN_KEY = 'adm1.s3cret';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const VARIATIONS = ['control', 'green', 'blue'] as const;
type Variation = (typeof VARIATIONS)[number];
/** Shares of each variation's visitors who check out / see an error, per phase. */
const CHECKOUT: Record<number, Record<Variation, number>> = {
  1: { control: 0.15, green: 0.45, blue: 0.15 },
  2: { control: 0.15, green: 0.45, blue: 0.15 },
};
const ERRORS: Record<number, Record<Variation, number>> = {
  1: { control: 0, green: 0, blue: 0 },
  2: { control: 0.03, green: 0.03, blue: 0.7 },
};
const VISITORS_PER_PHASE = 300;
/** When the visitors' profile ids were minted (fixed: the same ids, hence the same split, on every run). */
const MINTED = Date.parse('2026-01-15T10:00:00.000Z');

// Deep selectors into the console (each `>>>` goes into shadow roots).
const APP = 'svc-admin';
const METRICS = `${APP} >>> svc-admin-metrics`;
const EDITOR = `${APP} >>> svc-admin-editor`;
const LIST = `${APP} >>> svc-admin-experiences`;
const RESULTS = `${APP} >>> svc-admin-results`;
const ELEMENT = `${RESULTS} >>> svc-results`;
const ROW = `${LIST} >>> tr[data-name="story"]`;
const WEBHOOKS = `${APP} >>> svc-admin-webhooks`;
const NEW_ENDPOINT = `${WEBHOOKS} >>> section.new svc-admin-webhook-form`;

/** The service's DNS: none (the receivers are addresses; no host name is resolved). */
const NO_LOOKUP = (hostname: string): Promise<never> => Promise.reject(new Error(`the story resolves no host names (${hostname})`));

/** An endpoint the team added: its id, and the signing secret the page showed once. */
interface AddedWebhook {
  id: string;
  secret: string;
}

function config(): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        adminKeys: [ADMIN_KEY],
        projects: {
          shop: { apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 } },
        },
      },
    },
  };
}

/** A version 7 UUID minted at `ms`, as the SDK makes profile ids. */
function v7(ms: number, n: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** A small seeded generator (mulberry32): who converts and who errs is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `task` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

interface Visitor {
  profileId: string;
  userAgent: string;
  url: string;
  /** Two draws in [0, 1): below the variation's share, the visitor checks out (first) / sees an error (second). */
  draws: [number, number];
  variation?: Variation;
}

for (const driver of DRIVERS) {
  describe(`an experiment's story through the console (${driver.name})`, { skip, timeout: 180_000 }, () => {
    let db: TestDatabase;
    let storage: Storage;
    let app: FastifyInstance;
    let browser: Browser;
    let address: string;
    let page: Page;
    let downloads: string;
    let receivers: Record<'standard' | 'slack', Receiver>;
    const added: Partial<Record<'standard' | 'slack', AddedWebhook>> = {};
    const visitors: Record<number, Visitor[]> = { 1: [], 2: [] };
    /** Uncaught errors of the console's pages: none is expected anywhere in the story. */
    const pageErrors: string[] = [];

    /** A request to the service, as the test's visitors and its checks make them. */
    async function call(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<unknown> {
      const res = await fetch(`${address}${path}`, {
        method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      assert.ok(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
      return JSON.parse(text) as unknown;
    }
    const results = (query = ''): Promise<ResultsAnswer> =>
      call('GET', `${BASE}/experiences/story/results?apiKey=srv1.s3cret${query}`, {}) as Promise<ResultsAnswer>;
    const managed = <T>(path: string): Promise<T> => call('GET', `${BASE}/${path}`, { authorization: `Bearer ${ADMIN_KEY}` }) as Promise<T>;

    /** One visitor's page: Choose with the browser's write key and user agent; remembers the variation served. */
    async function visit(v: Visitor): Promise<void> {
      const answer = await call('POST', `${BASE}/optimization/choose-api`, { authorization: basic('web1.p4ss'), 'user-agent': v.userAgent }, {
        identification: { sourceId: 'web', profileId: v.profileId }, names: ['story'], url: v.url,
      }) as { choices: { name: string; variation?: string }[] };
      v.variation = answer.choices.find((c) => c.name === 'story')?.variation as Variation | undefined;
    }

    /** What the visitor then does (a page view, maybe a checkout, maybe an error), tracked as the SDK sends it. */
    async function act(v: Visitor, phase: number): Promise<void> {
      if (!v.variation) return;
      const names = ['Page viewed'];
      if (v.draws[0] < CHECKOUT[phase]![v.variation]) names.push('Checkout');
      if (v.draws[1] < ERRORS[phase]![v.variation]) names.push('Error shown');
      const batch = names.map((name) => makeEvent({
        name, profileId: v.profileId, sessionId: `s-${v.profileId}`, pageId: `p-${v.profileId}`,
        timestamp: new Date().toISOString(), data: { url: v.url },
      }));
      await call('POST', `${BASE}/sources/web/track`, { authorization: basic('web1.p4ss'), 'user-agent': v.userAgent }, { batch });
    }

    /** The phase's visitors: half Chrome, half Firefox, a third from a newsletter (utm_source=news). */
    function newVisitors(phase: number): Visitor[] {
      const draw = random(phase);
      return Array.from({ length: VISITORS_PER_PHASE }, (_, i) => ({
        profileId: v7(MINTED, phase * 10_000 + i),
        draws: [draw(), draw()],
        userAgent: i % 2 === 0 ? CHROME : FIREFOX,
        url: i % 3 === 0 ? 'https://shop.example/?utm_source=news' : 'https://shop.example/',
      }));
    }

    /** Waits until the results of `phase` count every visitor served in it. */
    async function counted(phase: number): Promise<ResultsAnswer> {
      const served = visitors[phase]!.filter((v) => v.variation).length;
      let seen = -1;
      return eventually(`results of phase ${phase} to count its ${served} exposed visitors`, async () => {
        const answer = await results(`&phase=${phase}`);
        seen = answer.units;
        return answer.units === served ? answer : undefined;
      }, { last: () => `${seen} units` });
    }

    /** Fails the step during which something tried to connect anywhere but 127.0.0.0/8. */
    afterEach(() => assert.deepEqual(guard.refused.splice(0), [], 'connections to anywhere but 127.0.0.0/8'));

    /** The endpoint's delivery log once it holds a delivery of `type` and every delivery in it succeeded. */
    function drained(endpoint: AddedWebhook, type: string): Promise<WebhookDelivery[]> {
      let seen = '';
      return eventually(`the deliveries to ${endpoint.id} to succeed, one of them ${type}`, async () => {
        const { deliveries } = await managed<{ deliveries: WebhookDelivery[] }>(`webhooks/${endpoint.id}/deliveries?limit=200`);
        seen = deliveries.map((d) => `${d.type} ${d.status}`).join(', ');
        return deliveries.some((d) => d.type === type) && deliveries.every((d) => d.status === 'succeeded') ? deliveries : undefined;
      }, { last: () => seen });
    }

    before(async () => {
      db = await driver.create();
      storage = await db.open();
      receivers = { standard: await startReceiver(), slack: await startReceiver() };
      // The service knows its own address before it listens: its webhooks link to its console there.
      const port = await freePort();
      address = `http://127.0.0.1:${port}`;
      app = await buildApp({
        config: config(), storage, staticRoot: REPO, guardrailIntervalMs: 300,
        webhooks: { allowLoopback: true, pollMs: 100, publicUrl: address, lookup: NO_LOOKUP },
      });
      await app.listen({ port, host: '127.0.0.1' });
      browser = await launchChromium();
      page = await browser.newPage();
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      await page.setViewport({ width: 1280, height: 900 });
      downloads = mkdtempSync(join(tmpdir(), 'svc-e2e-downloads-'));
    });
    after(async () => {
      await browser?.close();
      await app?.close();
      await Promise.all(Object.values(receivers ?? {}).map((r) => r.close()));
      await storage?.close();
      await db?.destroy();
      if (downloads) rmSync(downloads, { recursive: true, force: true });
    });

    it('1–2. signs in with the admin key and creates the metrics checkout and errors', { timeout: 60_000 }, async () => {
      await page.goto(`${address}/admin/?organization=acme&project=shop`, { waitUntil: 'load' });
      // The form is prefilled from the query; the key is typed.
      const organization = await find(page, `${APP} >>> svc-admin-sign-in >>> #organization`);
      assert.equal(await organization.evaluate((e) => (e as HTMLInputElement).value), 'acme');
      await signIn(page, ADMIN_KEY);
      await click(page, `${APP} >>> nav button::-p-text(Metrics)`);
      for (const m of [{ name: 'checkout', event: 'Checkout', inverse: false }, { name: 'errors', event: 'Error shown', inverse: true }]) {
        // New metric → name, binomial, event, lower is better for errors → Create metric → the list shows it.
        await click(page, `${METRICS} >>> button::-p-text(New metric)`);
        await fill(page, `${METRICS} >>> #name`, m.name);
        await click(page, `${METRICS} >>> input[name="type"][value="binomial"]`);
        await fill(page, `${METRICS} >>> #event`, m.event);
        if (m.inverse) await click(page, `${METRICS} >>> #inverse`);
        await click(page, `${METRICS} >>> button[type="submit"]::-p-text(Create metric)`);
        await find(page, `${METRICS} >>> tr[data-name="${m.name}"]`);
      }
      assert.match(await textOf(page, `${METRICS} >>> tr[data-name="errors"]`), /Error shown.*yes/);
      const { metrics } = await managed<{ metrics: Metric[] }>('metrics');
      assert.deepEqual(metrics.map((m) => [m.name, m.type, m.event, m.inverse === true]),
        [['checkout', 'binomial', 'Checkout', false], ['errors', 'binomial', 'Error shown', true]]);
    });

    it('2b. adds two webhooks in the console: its service hears every experiment event, Slack each stop', { timeout: 60_000 }, async () => {
      await click(page, `${APP} >>> nav button::-p-text(Webhooks)`);
      const forms = [
        { kind: 'standard', path: '/hooks/svc', description: 'Alerts service', events: '#all-experiments' },
        { kind: 'slack', path: '/services/T000/B000/XXXX', description: '#experiments', events: 'input[name="events"][value="experiment.stopped"]' },
      ] as const;
      for (const form of forms) {
        const url = `${receivers[form.kind].origin}${form.path}`;
        await fill(page, `${NEW_ENDPOINT} >>> #url`, url);
        await fill(page, `${NEW_ENDPOINT} >>> #description`, form.description);
        await click(page, `${NEW_ENDPOINT} >>> input[name="format"][value="${form.kind}"]`);
        await click(page, `${NEW_ENDPOINT} >>> ${form.events}`);
        await click(page, `${NEW_ENDPOINT} >>> button[type="submit"]::-p-text(Create endpoint)`);
        // Its signing secret, shown this once: copied from the page to the receiver, then put away.
        const title = await waitForText(page, `${WEBHOOKS} >>> .secret[data-kind="webhook"] #secret-title`, /^Signing secret of /);
        assert.equal(title, `Signing secret of ${new URL(url).host} (${form.description})`);
        const secret = await textOf(page, `${WEBHOOKS} >>> .secret[data-kind="webhook"] code`);
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
        await click(page, `${WEBHOOKS} >>> .secret button[data-action="dismiss"]`);
        await eventually('the secret put away', async () => ((await page.$(`${WEBHOOKS} >>> .secret`)) === null ? true : undefined));
        const { webhooks } = await managed<{ webhooks: WebhookEndpoint[] }>('webhooks');
        added[form.kind] = { id: webhooks.find((w) => w.url === url)!.id, secret };
      }
      await eventually('two endpoints listed', async () => ((await textsOf(page, `${WEBHOOKS} >>> li.endpoint h3`)).length === 2 ? true : undefined));
      const { webhooks } = await managed<{ webhooks: WebhookEndpoint[] }>('webhooks');
      const experimentEvents = WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('experiment.'));
      assert.deepEqual(webhooks.map((w) => [w.id, w.format, w.events, w.enabled]), [
        [added.standard!.id, 'standard', experimentEvents, true], [added.slack!.id, 'slack', ['experiment.stopped'], true],
      ]);
    });

    it('3. creates the experiment story (control/green/blue, goal checkout, guardrail errors) and starts it', { timeout: 60_000 }, async () => {
      await click(page, `${APP} >>> nav button::-p-text(Experiences)`);
      await click(page, `${LIST} >>> button::-p-text(New experience)`);
      await fill(page, `${EDITOR} >>> #name`, 'story');
      // The form starts with control/treatment at 50/50: rename, add a third row, set 34/33/33.
      await click(page, `${EDITOR} >>> button::-p-text(Add variation)`);
      const row = (i: number): string => `${EDITOR} >>> .variations tbody tr:nth-child(${i + 1})`;
      for (const [i, [name, weight]] of [['control', '34'], ['green', '33'], ['blue', '33']].entries()) {
        await fill(page, `${row(i)} .v-name input`, name!);
        await fill(page, `${row(i)} .v-weight input`, weight!);
      }
      await waitForText(page, `${EDITOR} >>> #weights`, /sum to 100%\./);
      // What it is judged by: checkout is the goal, errors a guardrail.
      await pick(page, `${EDITOR} >>> #role-checkout`, 'goal');
      await pick(page, `${EDITOR} >>> #role-errors`, 'guardrail');
      await click(page, `${EDITOR} >>> button[type="submit"]::-p-text(Create draft)`);
      await waitForText(page, `${ROW} .badge`, /draft/);
      // Start → the dialog says what will happen → confirm.
      await click(page, `${ROW} button[data-action="start"]`);
      await waitForText(page, `${LIST} >>> svc-admin-confirm >>> dialog[open] #what`, /control' 34%, 'green' 33%, 'blue' 33%/);
      await click(page, `${LIST} >>> svc-admin-confirm >>> dialog[open] button[value="confirm"]`);
      await waitForText(page, `${ROW} .badge`, /running/);
      const item = await managed<Experience>('experiences/story');
      assert.equal(item.status, 'running');
      assert.deepEqual(item.variations!.map((v) => [v.name, v.weight]), [['control', 34], ['green', 33], ['blue', 33]]);
      assert.deepEqual([item.goals, item.guardrails], [['checkout'], ['errors']]);
    });

    it('4. phase 1: 300 visitors; green converts more than control, blue like control, nobody errs', { timeout: 90_000 }, async () => {
      visitors[1] = newVisitors(1);
      await pool(visitors[1], 16, async (v) => {
        await visit(v);
        await act(v, 1);
      });
      const served = visitors[1].filter((v) => v.variation);
      assert.equal(served.length, VISITORS_PER_PHASE, 'every visitor of phase 1 got a variation of story');
      const answer = await counted(1);
      const checkout = answer.metrics.find((m) => m.name === 'checkout')!;
      const mean = (name: string): number => checkout.variations.find((v) => v.name === name)!.mean ?? NaN;
      assert.ok(mean('green') > mean('control') + 0.1, `green ${mean('green')} vs control ${mean('control')}`);
      assert.equal(answer.metrics.find((m) => m.name === 'errors')!.variations.reduce((sum, v) => sum + v.total, 0), 0);
    });

    it('5. a weight change in the console (20/60/20) says it starts a new phase, and does', { timeout: 60_000 }, async () => {
      await click(page, `${ROW} button[data-action="edit"]`);
      await waitForText(page, `${EDITOR} >>> .meta`, /running/);
      const weight = (i: number): string => `${EDITOR} >>> .variations tbody tr:nth-child(${i + 1}) .v-weight input`;
      for (const [i, w] of ['20', '60', '20'].entries()) await fill(page, weight(i), w);
      // Said before saving: the save starts a new phase.
      const notice = await waitForText(page, `${EDITOR} >>> .phase-notice`, /Saving starts a new phase/);
      assert.match(notice, /control 34% \/ green 33% \/ blue 33% → control 20% \/ green 60% \/ blue 20%/);
      await click(page, `${EDITOR} >>> button[type="submit"]::-p-text(Save)`);
      await find(page, `${ROW}`);
      const answer = await results();
      assert.equal(answer.phase, 2);
      assert.equal(answer.phases.length, 2);
      assert.ok(answer.phases[0]!.endedAt, 'phase 1 has ended');
      assert.deepEqual(answer.phases[1]!.weights, { control: 20, green: 60, blue: 20 });
    });

    it('6. phase 2: blue shows errors; the guardrail watch stops the experiment by itself, and says why', { timeout: 120_000 }, async () => {
      visitors[2] = newVisitors(2);
      // Every visitor is served before any acts, so each gets a variation before the watch can stop it.
      await pool(visitors[2], 16, visit);
      assert.equal(visitors[2].filter((v) => v.variation).length, VISITORS_PER_PHASE, 'every visitor of phase 2 got a variation');
      const shares = Object.fromEntries(VARIATIONS.map((n) => [n, visitors[2]!.filter((v) => v.variation === n).length]));
      await pool(visitors[2], 16, (v) => act(v, 2));
      // No false sample-ratio alarm: phase 2 is checked against its own weights.
      const answer = await counted(2);
      assert.equal(answer.srm.mismatch, false, `phase 2 split ${JSON.stringify(shares)}, p = ${answer.srm.pValue}`);
      assert.deepEqual(Object.fromEntries(answer.variations.map((v) => [v.name, v.units])), shares);
      // The watch looks every 300 ms: wait for it to stop story (bounded).
      let status = '';
      const item = await eventually('the guardrail watch to stop story', async () => {
        const e = await managed<Experience>('experiences/story');
        status = e.status;
        return e.status === 'stopped' ? e : undefined;
      }, { attempts: 200, intervalMs: 250, last: () => status });
      assert.equal(item.stoppedBy?.rule, 'guardrail');
      assert.equal(item.stoppedBy?.metric, 'errors');
      assert.equal(item.stoppedBy?.variation, 'blue');
      assert.equal(item.stoppedBy?.phase, 2);
      const { entries } = await managed<{ entries: AuditEntry[] }>('audit?limit=50');
      const stop = entries.find((e) => e.action === 'stop');
      assert.ok(stop, `no stop in the audit log: ${entries.map((e) => e.action).join(', ')}`);
      assert.equal(stop.keyId, 'service');
      assert.equal((stop.after?.stoppedBy as AutomaticStop | undefined)?.metric, 'errors');
      // The console's audit log says so too.
      await click(page, `${APP} >>> nav button::-p-text(Audit log)`);
      const summary = await waitForText(page, `${APP} >>> svc-admin-audit >>> tr[data-action="stop"] summary`, /Stopped by the service/);
      assert.match(summary, /'blue' harmed the guardrail 'errors'/);
    });

    it('6b. the stop reaches the team: one signed experiment.stopped with the guardrail\'s numbers, Slack\'s message, the link to the results', { timeout: 60_000 }, async () => {
      const standard = added.standard!;
      const slack = added.slack!;
      // Once every delivery succeeded: what arrived is all that will (the stopped experiment tells nothing more).
      await drained(standard, 'experiment.stopped');
      await drained(slack, 'experiment.stopped');
      const heard = receivers.standard.received.map((r) => verified(standard.secret, r) as WebhookPayload);
      const ids = receivers.standard.received.map((r) => r.headers['webhook-id']);
      assert.equal(new Set(ids).size, ids.length, 'each message arrived once');
      const count = (type: string): number => heard.filter((p) => p.type === type).length;
      assert.deepEqual(['experiment.started', 'experiment.phase_started', 'experiment.stopped'].map(count), [1, 1, 1]);

      const item = await managed<Experience>('experiences/story');
      const link = `${address}/admin/?organization=acme&project=shop#/experiences/story/results`;
      const stop = heard.find((p) => p.type === 'experiment.stopped') as WebhookPayload<'experiment.stopped'>;
      assert.deepEqual([stop.data.experience, stop.data.reason, stop.data.phase, stop.data.by], [
        'story', 'guardrail', 2, { type: 'service', name: 'svc guardrail watch' },
      ]);
      assert.deepEqual([stop.data.organization, stop.data.project, stop.data.url], ['acme', 'shop', link]);
      const numbers = stop.data.stoppedBy!;
      assert.deepEqual(numbers, item.stoppedBy);
      assert.deepEqual([numbers.rule, numbers.metric, numbers.variation], ['guardrail', 'errors', 'blue']);
      assert.equal(numbers.ci?.length, 2);
      for (const n of [numbers.uplift, numbers.pValueAdjusted, ...numbers.ci!]) assert.equal(typeof n, 'number', JSON.stringify(numbers));

      // Slack's channel gets the one stop it asked for, in words, with the numbers and the same link.
      assert.equal(receivers.slack.received.length, 1);
      const message = verified(slack.secret, receivers.slack.received[0]!) as { text: string; blocks: object[] };
      assert.equal(message.text, 'Experiment story stopped: blue harmed the guardrail errors (acme/shop)');
      const blocks = JSON.stringify(message.blocks);
      const uplift = `+${(numbers.uplift! * 100).toFixed(1)} %`;
      for (const shown of ['*Metric*\\nerrors', '*Variation*\\nblue', `*Uplift*\\n${uplift}`, `"url":"${link}"`]) {
        assert.ok(blocks.includes(shown), `${shown} in ${blocks}`);
      }

      // The link opens the results of story in the console, in a tab of the signed-in browser.
      const tab = await browser.newPage();
      tab.on('pageerror', (error) => pageErrors.push(String(error)));
      await tab.goto(stop.data.url, { waitUntil: 'load' });
      await waitForText(tab, `${RESULTS} >>> h1`, /^Results of story$/);
      assert.match(await waitForText(tab, `${RESULTS} >>> .alert[role="alert"]`, /Stopped by the service/), /'blue' harmed the guardrail 'errors'/);
      await find(tab, `${ELEMENT}[status="ready"]`);
      await tab.close();
    });

    it('7. the results page: stopped by the service, the date graph, the primary goal, a breakdown by browser; Back works', { timeout: 60_000 }, async () => {
      await click(page, `${APP} >>> nav button::-p-text(Experiences)`);
      await waitForText(page, `${ROW} .badge`, /stopped/);
      // The rows' headline results come after the list, and a row grows when its headline replaces "loading…": a click
      // aimed at the button's centre before then can land beside it. Click once they are in.
      const headlinesIn = async (): Promise<true | undefined> => ((await textsOf(page, `${LIST} >>> td.headline`)).some((t) => t.includes('loading')) ? undefined : true);
      await eventually('the list\'s headline results', headlinesIn);
      await click(page, `${ROW} button[data-action="results"]`);
      await eventually('the address of the results page', async () => (page.url().endsWith('#/experiences/story/results') ? true : undefined));
      await waitForText(page, `${RESULTS} >>> .facts .badge`, /stopped/);
      assert.match(await textOf(page, `${RESULTS} >>> .alert[role="alert"]`), /Stopped by the service.*'blue' harmed the guardrail 'errors'/);
      await find(page, `${ELEMENT}[status="ready"]`);
      await find(page, `${ELEMENT} >>> [part~="series"] svg`);
      const captions = await textsOf(page, `${ELEMENT} >>> [part~="metric"] caption`);
      assert.ok(captions.some((c) => /^checkout Primary goal/.test(c)), `captions: ${captions.join(' | ')}`);
      assert.ok(captions.some((c) => /^errors Guardrail/.test(c)), `captions: ${captions.join(' | ')}`);
      // Back returns to the list, Forward to the results.
      await page.goBack();
      await find(page, `${ROW}`);
      assert.ok(page.url().endsWith('#/experiences'), page.url());
      await page.goForward();
      await find(page, `${ELEMENT}[status="ready"]`);
      // Break down by browser → the address says so, a section per browser follows.
      await pick(page, `${ELEMENT} >>> #breakdown`, 'browser');
      const broken = '#/experiences/story/results?phase=2&dimension=browser';
      await eventually(`the address to become ${broken}`, async () => (page.url().endsWith(broken) ? true : undefined), {
        last: () => page.url(),
      });
      const headings = await eventually('sections per browser', async () => {
        const h = await textsOf(page, `${ELEMENT} >>> [part~="section"] h3`);
        return h.some((x) => x.startsWith('Browser: Chrome')) && h.some((x) => x.startsWith('Browser: Firefox')) ? h : undefined;
      });
      assert.equal(headings[0], 'All units');
    });

    it('8. Download CSV writes the view shown, and its units add up with the API', { timeout: 60_000 }, async () => {
      const session = await page.createCDPSession();
      await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
      await click(page, `${ELEMENT} >>> [part~="csv"]`);
      const rows = csvRecords(await downloaded(downloads, 'story-phase2.csv'));
      const api = await results('&phase=2&dimension=browser&series=day');
      const checkout = rows.filter((r) => r.metric === 'checkout');
      const all = checkout.filter((r) => r.section === 'all');
      assert.deepEqual(all.map((r) => [r.variation, r.role]), VARIATIONS.map((v) => [v, 'goal']));
      for (const v of api.metrics.find((m) => m.name === 'checkout')!.variations) {
        const overall = all.find((r) => r.variation === v.name)!;
        assert.equal(Number(overall.units), v.units, `units of ${v.name}`);
        assert.equal(Number(overall.total), v.total, `checkouts of ${v.name}`);
        // The browsers' sections add up to the overall units, and each is the API's.
        const parts = checkout.filter((r) => r.section === 'dimension' && r.variation === v.name);
        assert.deepEqual(parts.map((r) => r.dimension).filter((d, i, a) => a.indexOf(d) === i), ['browser']);
        assert.equal(parts.reduce((sum, r) => sum + Number(r.units), 0), v.units, `${v.name}: browsers add up`);
        for (const r of parts) {
          const d = api.dimensions!.find((x) => x.value === r.value)!;
          assert.equal(Number(r.units), d.metrics.find((m) => m.name === 'checkout')!.variations.find((x) => x.name === v.name)!.units);
        }
      }
      assert.deepEqual([...new Set(checkout.filter((r) => r.section === 'dimension').map((r) => r.value))].sort(), ['Chrome', 'Firefox']);
      assert.ok(rows.some((r) => r.metric === 'errors' && r.section === 'all' && r.variation === 'blue'), 'the guardrail is in the CSV');
      await session.detach();
    });

    it('9. a reload keeps the view; a new tab asks to sign in, then shows the same view', { timeout: 60_000 }, async () => {
      const url = page.url();
      await page.reload({ waitUntil: 'load' });
      assert.equal(page.url(), url);
      await find(page, `${ELEMENT}[status="ready"]`);
      assert.equal(await find(page, `${ELEMENT} >>> #breakdown`).then((h) => h.evaluate((e) => (e as HTMLSelectElement).value)), 'browser');
      assert.ok((await textsOf(page, `${ELEMENT} >>> [part~="section"] h3`)).some((h) => h.startsWith('Browser: Chrome')));
      // The sign-in is the browser's (a cookie): a new tab opened on the address lands on it, signed in.
      const tab = await browser.newPage();
      tab.on('pageerror', (error) => pageErrors.push(String(error)));
      await tab.goto(url, { waitUntil: 'load' });
      await find(tab, `${ELEMENT}[status="ready"]`);
      assert.equal(tab.url(), url);
      await eventually('sections per browser in the new tab', async () => {
        const h = await textsOf(tab, `${ELEMENT} >>> [part~="section"] h3`);
        return h.some((x) => x.startsWith('Browser: Firefox')) ? true : undefined;
      });
      await tab.close();
      assert.deepEqual(pageErrors, [], 'no uncaught error in the console');
    });
  });
}
