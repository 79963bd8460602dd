// <svc-admin-confirm> on its own: a question cancelled and asked again at once (Delete right after Cancel) is answered
// by its own button, not by the late `close` event of the question before it.
import { expect, fixture, html } from '@open-wc/testing';
import { SvcAdminConfirm } from './confirm-dialog.js';

if (!customElements.get('svc-admin-confirm')) customElements.define('svc-admin-confirm', SvcAdminConfirm);

const question = { title: 'Delete it?', describe: () => 'It goes.', confirmLabel: () => 'Delete', danger: true };

describe('<svc-admin-confirm>', () => {
  it('answers a question asked again right after a cancel with the button pressed then', async () => {
    const el = await fixture<SvcAdminConfirm>(html`<svc-admin-confirm></svc-admin-confirm>`);
    const button = (value: string) => el.renderRoot.querySelector<HTMLButtonElement>(`button[value="${value}"]`)!;
    const first = el.ask(question);
    await el.updateComplete;
    button('cancel').click();
    expect(el.renderRoot.querySelector('dialog')!.open).to.equal(false);
    // Asked again before the first close event is dispatched.
    const second = el.ask(question);
    expect(await first).to.equal(null);
    await el.updateComplete;
    // The first close event arrives now, while the second question is open (a person reads before pressing).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(el.renderRoot.querySelector('dialog')!.open).to.equal(true);
    button('confirm').click();
    expect(await second).to.deep.equal({ choice: undefined });
  });

  it('answers null for Cancel and the choice for confirm', async () => {
    const el = await fixture<SvcAdminConfirm>(html`<svc-admin-confirm></svc-admin-confirm>`);
    const cancelled = el.ask({ ...question, choices: { legend: 'Winner', options: ['a', 'b'], initial: 'b' } });
    await el.updateComplete;
    el.renderRoot.querySelector<HTMLButtonElement>('button[value="cancel"]')!.click();
    expect(await cancelled).to.equal(null);
    const confirmed = el.ask({ ...question, choices: { legend: 'Winner', options: ['a', 'b'], initial: 'b' } });
    await el.updateComplete;
    el.renderRoot.querySelector<HTMLButtonElement>('button[value="confirm"]')!.click();
    expect(await confirmed).to.deep.equal({ choice: 'b' });
  });
});
