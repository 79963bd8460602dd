// Strategies against each other in the editor's form: feeds as variations, named after their strategies, and the
// holdout's metrics as a recommendations experiment's goals.
import { expect } from '@open-wc/testing';
import type { Experience, Feed } from './experience.js';
import { draftItem, draftOf, variationDraft } from './experience-form.js';
import { asFeedArms, feedOfBody, holdoutGoals, nextFeedArm, withFeed } from './feed-arms.js';

const feeds: Feed[] = [
  { id: 1, strategy: 'popular', version: 1, source: 'file' },
  { id: 2, strategy: 'personalized', version: 1, source: 'api' },
  { id: 3, strategy: 'popular', version: 1, source: 'api' },
];

describe('feed arms', () => {
  const bodies: [string, number | undefined][] = [
    ['{"feed": 2}', 2], ['{\n  "feed": 12\n}', 12], ['{"feed": 2, "title": "x"}', undefined], ['{"feed": "2"}', undefined],
    ['{"feed": 0}', undefined], ['{"feed": 1.5}', undefined], ['[2]', undefined], ['{"feed": ', undefined],
  ];
  for (const [body, feed] of bodies) {
    it(`reads ${JSON.stringify(body)} as ${feed === undefined ? 'no feed' : `feed ${feed}`}`, () => expect(feedOfBody(body)).to.equal(feed));
  }

  it('turns a new experiment\'s control and treatment into the first two feeds, named by strategy', () => {
    const arms = asFeedArms(draftOf().variations, feeds);
    expect(arms.map((v) => [v.name, feedOfBody(v.body), v.weight])).to.deep.equal([['popular-1', 1, '50'], ['personalized', 2, '50']]);
  });

  it('keeps a name the person typed, and adds the next feed no arm uses', () => {
    const arms = asFeedArms([variationDraft('baseline', '50', { feed: 2 }), variationDraft('mine', '50')], feeds);
    expect(arms.map((v) => [v.name, feedOfBody(v.body)])).to.deep.equal([['baseline', 2], ['mine', 1]]);
    expect(nextFeedArm(arms, feeds)).to.deep.equal({ name: 'popular-3', body: { feed: 3 } });
  });

  it('renames an arm after its new feed while it has the old feed\'s name, not once renamed by hand', () => {
    const arm = variationDraft('personalized', '50', { feed: 2 });
    expect(withFeed(arm, 1, feeds)).to.include({ name: 'popular-1' });
    expect(withFeed({ ...arm, name: 'for-you' }, 1, feeds)).to.include({ name: 'for-you' });
    expect(feedOfBody(withFeed(arm, 3, feeds).body)).to.equal(3);
  });

  it('saves each arm as {"feed": id} and reads such an experiment back as feed arms', () => {
    const d = { ...draftOf(), name: 'recs', feedArms: true, variations: asFeedArms(draftOf().variations, feeds) };
    const item = draftItem(d);
    expect(item.variations!.map((v) => v.body)).to.deep.equal([{ feed: 1 }, { feed: 2 }]);
    expect(draftOf({ ...item, version: 1, source: 'api', status: 'draft' } as Experience).feedArms).to.equal(true);
    expect(draftOf({ ...item, variations: [{ name: 'a', weight: 100, body: { feed: 1, x: 1 } }], version: 1, source: 'api', status: 'draft' } as Experience).feedArms).to.equal(false);
  });

  it('offers the holdout\'s metrics as goals, revenue first, only when the project has them', () => {
    const metrics = [{ name: 'purchase' }, { name: 'recommendations-order-value' }, { name: 'recommendations-revenue' }, { name: 'recommendations-orders' }];
    expect(holdoutGoals(metrics)).to.deep.equal(['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value']);
    expect(holdoutGoals([{ name: 'purchase' }])).to.deep.equal([]);
  });
});
