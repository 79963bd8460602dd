// The console's Plan page against our running service (test/helpers/service-under-test.mjs): the figures the planner
// answers for an experiment of acme/shop (after a few people visited and ordered), the form that asks for others and
// moves the page's address, its states (loading, no traffic yet in a project nobody visited, the service's error),
// and the way there from the results page.
import { expect, fixture, html } from '@open-wc/testing';
import type { PlanAnswer } from '../wire/plan-answer.js';
import { AdminApi } from './admin-api.js';
import type { AdminView } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';
import { adminFetch, fill, find, get, keyApi, shop, text, unique, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminPlan } from './plan-page.js';
import type { SvcAdminResults } from './results-page.js';

defineAdmin();

const arms = [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }];

/** A draft experiment of acme/shop judged on purchase. */
async function draft(): Promise<string> {
  const name = unique('plan');
  const res = await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify({ variations: arms, goals: ['purchase'], status: 'draft' }) });
  expect(res.status).to.equal(201);
  return name;
}

/** Twenty people view a page of acme/shop, five of them order: the project has a recent baseline. */
async function visitors(): Promise<void> {
  const at = new Date().toISOString();
  const batch = Array.from({ length: 20 }, (_, i) => {
    const person = { profileId: crypto.randomUUID(), sessionId: crypto.randomUUID(), pageId: crypto.randomUUID(), timestamp: at };
    return [
      { ...person, eventId: crypto.randomUUID(), type: 'page', name: 'View Page', data: {} },
      ...(i < 5 ? [{ ...person, eventId: crypto.randomUUID(), type: 'product', name: 'Product ordered', data: { productId: 'p1', price: 12.5 } }] : []),
    ];
  }).flat();
  const res = await fetch(`${shop}/sources/web/track`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Basic ${btoa('web1:p4ss')}` }, body: JSON.stringify({ batch }),
  });
  expect(res.status).to.equal(200);
}

async function serviceAnswer(name: string, query: string): Promise<PlanAnswer> {
  const res = await adminFetch(`experiences/${name}/plan?${query}`);
  expect(res.status).to.equal(200);
  return res.json() as Promise<PlanAnswer>;
}

const cells = (el: Element, selector: string): string[] => [...el.shadowRoot!.querySelectorAll(`${selector} td`)].map((td) => text(td));

describe('<svc-admin-plan>', () => {
  it('shows the units per variation and in all, and the days, fixed-horizon beside sequential, as the service plans them', async function () {
    this.timeout(20_000);
    await visitors();
    const name = await draft();
    const el = await fixture<SvcAdminPlan>(html`<svc-admin-plan experience=${name} .api=${await keyApi()}></svc-admin-plan>`);
    // The plan is asked for at once, for the primary goal and a 5 % change; the figures' place says so meanwhile.
    expect(el.status).to.equal('loading');
    expect(text(get(el, '[role="status"]'))).to.equal('Planning…');
    await until(() => el.status === 'ready', 'the plan');
    const service = await serviceAnswer(name, 'mde=0.05');
    expect(service.gap).to.equal(undefined);
    const count = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
    expect(text(get(el, 'caption'))).to.equal('People needed to detect a 5% change in purchase');
    expect(cells(el, 'tr[data-variation="control"]')).to.deep.equal([
      count.format(service.fixedHorizon.variations[0]!.units!), count.format(service.sequential.variations[0]!.units!),
    ]);
    expect(cells(el, 'tr[data-row="total"]')).to.deep.equal([count.format(service.fixedHorizon.units!), count.format(service.sequential.units!)]);
    expect(cells(el, 'tr[data-row="days"]')[0]).to.equal(`${count.format(service.fixedHorizon.days!)} ${service.fixedHorizon.days === 1 ? 'day' : 'days'}`);
    expect(text(get(el, 'thead th:nth-child(2)'))).to.contain('this experiment');
    expect(get<HTMLSelectElement>(el, '#plan-metric').value).to.equal('purchase');
    expect(text(get(el, '[data-fact="baseline"] dd'))).to.contain('converted');
    expect(find(el, '[data-detectable]')).to.equal(null);
    await expect(el).to.be.accessible();

    // Another change and a planned length: the address moves, and the page says what that run can detect.
    const moved: AdminView[] = [];
    el.addEventListener('svc-admin:navigate', (e) => moved.push((e as CustomEvent<AdminView>).detail));
    fill(get<HTMLInputElement>(el, '#plan-mde'), '0');
    get<HTMLButtonElement>(el, 'form.plan button[type="submit"]').click();
    await el.updateComplete;
    expect(moved).to.deep.equal([]);
    expect(text(get(el, '#plan-error'))).to.equal('Type a change greater than 0% and at most 1,000%.');
    expect(get(el, '#plan-mde').getAttribute('aria-invalid')).to.equal('true');
    fill(get<HTMLInputElement>(el, '#plan-mde'), '10');
    fill(get<HTMLInputElement>(el, '#plan-days'), '28');
    get<HTMLButtonElement>(el, 'form.plan button[type="submit"]').click();
    expect(moved).to.deep.equal([{ name: 'plan', experience: name, metric: 'purchase', mde: 0.1, days: 28 }]);
    expect(hashOf(moved[0]!)).to.equal(`#/experiences/${name}/plan?metric=purchase&mde=0.1&days=28`);
    expect(viewOf(hashOf(moved[0]!))).to.deep.equal(moved[0]);
    await until(() => el.status === 'ready' && find(el, '[data-detectable]'), 'the plan for 28 days');
    const longer = await serviceAnswer(name, 'mde=0.1&metric=purchase&days=28');
    expect(text(get(el, '[data-detectable]'))).to.contain(`about ${count.format(longer.detectable!.units)} people`);
    await expect(el).to.be.accessible();
  });

  it('says there is no traffic yet in a project nobody visited, and shows the service\'s message when it refuses', async function () {
    this.timeout(20_000);
    const quiet = new AdminApi({ organization: 'ssotest', project: 'web' });
    await quiet.signInWithKey('ssotest.s3cret');
    const metric = await quiet.putMetric({ name: unique('signup'), type: 'binomial', event: 'Signed up' });
    const name = unique('launch');
    await quiet.saveExperience(name, { name, variations: arms, goals: [metric.name], status: 'draft' });
    const el = await fixture<SvcAdminPlan>(html`<svc-admin-plan experience=${name} .api=${quiet}></svc-admin-plan>`);
    await until(() => el.status === 'empty', 'the empty plan');
    expect(text(get(el, '.state.empty[data-gap="no-traffic"]'))).to.contain('No traffic yet');
    expect(find(el, 'table')).to.equal(null);
    await expect(el).to.be.accessible();

    el.api = await keyApi();
    el.experience = 'no-such-experiment';
    await until(() => el.status === 'error', 'the error');
    expect(text(get(el, '.alert.error'))).to.contain('There is no experience').and.contain('no-such-experiment');
    await expect(el).to.be.accessible();
  });

  it('is reached from the results page', async function () {
    this.timeout(20_000);
    const el = await fixture<SvcAdminResults>(html`<svc-admin-results experience="results-hero" .api=${await keyApi()}></svc-admin-results>`);
    const moved: AdminView[] = [];
    el.addEventListener('svc-admin:navigate', (e) => moved.push((e as CustomEvent<AdminView>).detail));
    const plan = [...el.shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Plan')!;
    plan.click();
    expect(moved).to.deep.equal([{ name: 'plan', experience: 'results-hero' }]);
    expect(hashOf(moved[0]!)).to.equal('#/experiences/results-hero/plan');
  });
});
