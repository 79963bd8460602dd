// Every console screen's address, and back: what a reload, a link, Back and Forward rely on.
import { expect } from '@open-wc/testing';
import type { AdminView } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';

const screens: [AdminView, string][] = [
  [{ name: 'experiences' }, '#/experiences'],
  [{ name: 'editor', experience: null }, '#/experiences/new'],
  [{ name: 'editor', experience: 'hero banner' }, '#/experiences/hero%20banner/edit'],
  [{ name: 'results', experience: 'hero' }, '#/experiences/hero/results'],
  [{ name: 'results', experience: 'hero', phase: 2, metric: 'revenue', dimension: 'attribute:plan' },
    '#/experiences/hero/results?phase=2&metric=revenue&dimension=attribute%3Aplan'],
  [{ name: 'results', experience: 'hero', phase: 'all' }, '#/experiences/hero/results?phase=all'],
  [{ name: 'feeds' }, '#/feeds'],
  [{ name: 'feed-editor', feed: null }, '#/feeds/new'],
  [{ name: 'feed-editor', feed: 7 }, '#/feeds/7/edit'],
  [{ name: 'feed-report', feed: 1 }, '#/feeds/1/report'],
  [{ name: 'feed-report', feed: 12, from: '2026-11-01', to: '2026-11-30' }, '#/feeds/12/report?from=2026-11-01&to=2026-11-30'],
  [{ name: 'metrics' }, '#/metrics'],
  [{ name: 'metrics', new: true }, '#/metrics/new'],
  [{ name: 'access' }, '#/access'],
  [{ name: 'audit' }, '#/audit'],
  [{ name: 'audit', scope: 'organization' }, '#/audit?scope=organization'],
  [{ name: 'privacy' }, '#/privacy'],
  [{ name: 'webhooks' }, '#/webhooks'],
  [{ name: 'account' }, '#/account'],
  [{ name: 'invitation', token: 'Ab_9-xYz' }, '#/invitation/Ab_9-xYz'],
];

describe('console addresses', () => {
  for (const [view, hash] of screens) {
    it(`${hash} is the ${view.name} screen, both ways`, () => {
      expect(hashOf(view)).to.equal(hash);
      expect(viewOf(hash)).to.deep.equal(view);
    });
  }

  it('takes an empty, unknown or malformed address as the experience list', () => {
    for (const hash of ['', '#', '#/', '#/nope', '#/experiences/hero/nope', '#/experiences/%E0%A4%A/edit/x', '#/invitation', '#/invitation/a/b']) {
      expect(viewOf(hash)).to.deep.equal({ name: 'experiences' });
    }
  });

  it('takes a feed id that is no feed id as the experience list, and leaves out a range day that is no day', () => {
    for (const hash of ['#/feeds/0/report', '#/feeds/x/report', '#/feeds/1', '#/feeds/1/report/x']) {
      expect(viewOf(hash)).to.deep.equal({ name: 'experiences' });
    }
    expect(viewOf('#/feeds/3/report?from=yesterday&to=2026-11-30')).to.deep.equal({ name: 'feed-report', feed: 3, to: '2026-11-30' });
  });

  it('takes an unknown audit scope as the project\'s', () => {
    expect(viewOf('#/audit?scope=everything')).to.deep.equal({ name: 'audit' });
  });

  it('ignores a phase that is not a phase number', () => {
    expect(viewOf('#/experiences/hero/results?phase=0')).to.deep.equal({ name: 'results', experience: 'hero' });
    expect(viewOf('#/experiences/hero/results?phase=x')).to.deep.equal({ name: 'results', experience: 'hero' });
  });
});
