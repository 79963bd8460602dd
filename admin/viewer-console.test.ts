// A viewer's console against our running service: the key made for reading shows no write and no access management
// (the service refuses them anyway: test/server/management/team-access.test.ts).
import { expect, fixture, html } from '@open-wc/testing';
import { defineResults } from '../plugins/results/index.js';
import type { SvcAdmin } from './admin-app.js';
import {
  ADMIN_KEY, find, openConsole, personWithPassword, removePeople, resetAddress, signInWithPassword, signOutEverywhere, text, until,
} from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';

defineResults();
defineAdmin();

async function makeKey(role: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${location.origin}/v1/acme/keys`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `console ${role}`, role }),
  });
  expect(res.status).to.equal(201);
  return res.json() as Promise<{ id: string; key: string }>;
}

const revoke = (id: string) => fetch(`${location.origin}/v1/acme/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
/** Every address a viewer may not use, with the role its screen needs and what the screen would do. */
const NOT_FOR_A_VIEWER = [
  { hash: '#/privacy', role: 'admin role', heading: 'You cannot handle privacy requests here' },
  { hash: '#/webhooks', role: 'admin role', heading: 'You cannot manage webhooks here' },
  { hash: '#/access', role: 'admin role over the whole organization', heading: 'You cannot manage people and keys here' },
  { hash: '#/audit?scope=organization', role: 'admin role over the whole organization', heading: 'You cannot read the organization\'s audit log here' },
  { hash: '#/experiences/new', role: 'editor role', heading: 'You cannot create experiences here' },
  { hash: '#/experiences/results-hero/edit', role: 'editor role', heading: 'You cannot edit experiences here' },
  { hash: '#/metrics/new', role: 'editor role', heading: 'You cannot create metrics here' },
  { hash: '#/feeds/new', role: 'editor role', heading: 'You cannot create feeds here' },
  { hash: '#/feeds/1/edit', role: 'editor role', heading: 'You cannot edit feeds here' },
];

const navTexts = (app: SvcAdmin) => [...app.shadowRoot!.querySelectorAll('header nav button')].map((b) => text(b));

describe('<svc-admin> for a viewer', () => {
  beforeEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  afterEach(() => sessionStorage.clear());

  it('shows the experiences and metrics without New, Edit or lifecycle steps, and no privacy, people or keys', async function () {
    this.timeout(20_000);
    const { id, key } = await makeKey('viewer');
    try {
      await openConsole(key);
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await until(() => navTexts(app).length === 5 || null, 'the nav of a viewer');
      expect(navTexts(app)).to.deep.equal(['Experiences', 'Audit log', 'Metrics', 'My account', 'Feeds']);
      const list = await until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');
      await until(() => list.shadowRoot!.querySelector('tr[data-name="results-hero"]'), 'the rows');
      const buttons = [...list.shadowRoot!.querySelectorAll('button')].map((b) => text(b));
      expect(buttons.some((b) => b.startsWith('New experience') || b.startsWith('Edit') || b.startsWith('Stop') || b.startsWith('Start'))).to.equal(false);
      expect(buttons.some((b) => b.startsWith('Results'))).to.equal(true);
      await expect(app).to.be.accessible();

      // Metrics: listed, with no New, Edit or Delete to be seen.
      [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('header nav button')].find((b) => text(b) === 'Metrics')!.click();
      const metrics = await until(() => find(app, 'svc-admin-metrics[status="ready"]'), 'the metric list');
      await until(() => metrics.shadowRoot!.querySelector('tr[data-name="purchase"]'), 'the metric rows');
      const visible = [...metrics.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].filter((b) => b.getClientRects().length > 0).map((b) => text(b));
      expect(visible.filter((b) => /^(New metric|Edit|Delete)/.test(b))).to.deep.equal([]);

      // Their account: the role, and no password (a key has none).
      [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('header nav button')].find((b) => text(b) === 'My account')!.click();
      const account = await until(() => find(app, 'svc-admin-account[status="ready"]'), 'the account page');
      expect(text(account.shadowRoot!.querySelector('section'))).to.contain('Role viewer');
      expect(account.shadowRoot!.querySelector('form')).to.equal(null);
    } finally {
      await revoke(id);
    }
  });

  for (const { hash, role, heading } of NOT_FOR_A_VIEWER) {
    it(`says at ${hash} that a viewer's key needs the ${role}, with nothing to press there`, async function () {
      this.timeout(20_000);
      const { id, key } = await makeKey('viewer');
      try {
        await openConsole(key);
        history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
        const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
        const section = await until(() => find(app, 'section.role-needed'), 'the screen that says which role it needs');
        expect(text(section.querySelector('h1'))).to.equal(heading);
        expect(text(section)).to.contain(`This screen needs the ${role}`);
        expect(text(section)).to.contain('The key console viewer has the viewer role. Sign in with a key that has');
        expect(find(app, '[data-view]')).to.equal(null);
        expect(app.shadowRoot!.querySelectorAll('main button').length).to.equal(0);
        await expect(app).to.be.accessible();
      } finally {
        await revoke(id);
      }
    });
  }

  it('tells a viewer signed in as a person that an admin can give them the role privacy needs', async function () {
    this.timeout(20_000);
    const people: string[] = [];
    try {
      const { email, password } = await personWithPassword('viewer');
      people.push(email);
      history.replaceState(null, '', `${location.pathname}${location.search}#/privacy`);
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await signInWithPassword(app, email, password);
      const section = await until(() => find(app, 'section.role-needed'), 'the screen that says which role it needs');
      expect(text(section)).to.contain(`You are signed in as ${email}, with the viewer role.`);
      expect(text(section)).to.contain('An admin of the organization can give you the admin role');
      expect(find(app, 'svc-admin-privacy')).to.equal(null);
    } finally {
      await signOutEverywhere();
      await removePeople(people);
    }
  });

  it('shows an editor every write, and still no people or keys', async function () {
    this.timeout(20_000);
    const { id, key } = await makeKey('editor');
    try {
      await openConsole(key);
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await until(() => navTexts(app).length === 5 || null, 'the nav of an editor');
      const list = await until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');
      expect([...list.shadowRoot!.querySelectorAll('button')].some((b) => text(b) === 'New experience')).to.equal(true);
    } finally {
      await revoke(id);
    }
  });
});
