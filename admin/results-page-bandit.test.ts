// The console's results page of a bandit, end to end against our running service (test/helpers/service-under-test.mjs,
// which looks at bandits every 200 ms): project recs has feeds 1 (popular) and 2 (personalized) and a recommendations
// holdout. Nothing is stubbed and nothing is written behind the service's back: the service's own reweight job moves
// the weights, and the page draws what the results answer says.
import { expect, fixture, html } from '@open-wc/testing';
import { defineResults } from '../plugins/results/index.js';
import type { ResultsAnswer } from '../wire/results-answer.js';
import { ADMIN_KEY, acme, find, keyApi, text, unique, until } from './admin-test-helpers.js';
import type { SvcAdminBanditWeights } from './bandit-weights.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminResults } from './results-page.js';

defineResults();
defineAdmin();

/** A cell's text without the column name it shows on a phone. */
function cellText(cell: Element): string {
  const copy = cell.cloneNode(true) as Element;
  copy.querySelector('.cell-label')?.remove();
  return text(copy);
}

const recs = `${acme}/projects/recs`;
const headers = { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' };

/** The results answer once it lists a reweight, asked again a bounded number of times (the job looks every 200 ms). */
async function reweighted(name: string): Promise<ResultsAnswer> {
  for (let i = 0; i < 100; i++) {
    const answer = await (await fetch(`${recs}/experiences/${name}/results`, { headers })).json() as ResultsAnswer;
    if (answer.reweights?.length) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for a reweight of ${name}`);
}

describe('<svc-admin-results> of a bandit', () => {
  const name = unique('bandit-results');
  after(() => fetch(`${recs}/experiences/${name}`, { method: 'DELETE', headers }));

  it('draws the weights the service\'s reweight job set, each arm named, with the reweight in the table', async function () {
    this.timeout(30_000);
    // A running bandit over two feeds whose weights a person left unequal while it explores: the job sets them equal
    // at once (an `exploration` reweight, recorded as every reweight is).
    const item = {
      allocation: 'bandit', goals: ['recommendations-revenue'], bandit: { explorationHours: 24, cadenceMinutes: 5 },
      variations: [{ name: 'popular', weight: 70, body: { feed: 1 } }, { name: 'personalized', weight: 30, body: { feed: 2 } }],
    };
    const put = await fetch(`${recs}/experiences/${name}`, { method: 'PUT', headers, body: JSON.stringify(item) });
    expect(put.status, await put.clone().text()).to.equal(201);
    const answer = await reweighted(name);
    expect(answer.reweights!.map((r) => [r.reason, r.weights])).to.deep.equal([['exploration', { popular: 50, personalized: 50 }]]);

    const el = await fixture<SvcAdminResults>(html`<svc-admin-results experience=${name} .api=${await keyApi(ADMIN_KEY, 'recs')}></svc-admin-results>`);
    const weights = await until(() => find<SvcAdminBanditWeights>(el, 'svc-admin-bandit-weights[status="ready"]'), 'the weights chart');
    const bands = [...weights.shadowRoot!.querySelectorAll('svg[role="img"] path.band')].map((p) => p.getAttribute('data-arm'));
    expect(bands).to.deep.equal(['popular', 'personalized']);
    expect([...weights.shadowRoot!.querySelectorAll('.legend li')].map((li) => text(li))).to.deep.equal(['popular 50%', 'personalized 50%']);
    const rows = [...weights.shadowRoot!.querySelectorAll('table.reweights tbody tr')].map((tr) => [...tr.children].slice(1).map(cellText));
    expect(rows).to.deep.equal([['exploring (equal)', '50%', '50%'], ['phase 1 starts', '70%', '30%']]);
    expect(text(weights.shadowRoot!.querySelector('.note'))).to.contain('stratified by the 2 periods between reweights');
    await expect(el).to.be.accessible();
  });
});
