// The editor's form as data: what it refuses before sending, and the item it sends.
import { expect } from '@open-wc/testing';
import type { Experience } from './experience.js';
import { draftErrors, draftItem, draftOf, type ExperienceDraft } from './experience-form.js';

const loaded: Experience = {
  name: 'hero', version: 3, source: 'api', status: 'stopped', winner: 'bold', stickiness: 'session', seed: 's1',
  variations: [{ name: 'control', weight: 50, body: { t: 'a' } }, { name: 'bold', weight: 50, body: { t: 'b' } }],
};

const refusals: { name: string; change: (d: ExperienceDraft) => void; field: string }[] = [
  { name: 'weights that sum to 90', change: (d) => (d.variations[1]!.weight = '40'), field: 'weights' },
  { name: 'a variation body that does not parse', change: (d) => (d.variations[0]!.body = '{"t": '), field: 'variations.0.body' },
  { name: 'a variation body that is a list', change: (d) => (d.variations[0]!.body = '[1]'), field: 'variations.0.body' },
  { name: 'a condition that does not parse', change: (d) => (d.condition = '{'), field: 'condition' },
  { name: 'a content body that is empty', change: (d) => { d.kind = 'content'; d.body = ' '; }, field: 'body' },
];

describe('experience form', () => {
  it('accepts the form of a stored experience as it is', () => {
    expect(draftErrors(draftOf(loaded))).to.deep.equal({});
  });

  for (const r of refusals) {
    it(`refuses ${r.name} (field ${r.field})`, () => {
      const d = draftOf(loaded);
      r.change(d);
      expect(Object.keys(draftErrors(d))).to.deep.equal([r.field]);
    });
  }

  it('tolerates the float rounding of three thirds (33.33 + 33.33 + 33.34)', () => {
    const d = draftOf(loaded);
    d.variations = [...d.variations, { ...d.variations[0]!, id: -1, name: 'third' }];
    ['33.33', '33.33', '33.34'].forEach((w, i) => (d.variations[i]!.weight = w));
    expect(draftErrors(d)).to.deep.equal({});
  });

  it('keeps the fields it does not edit, and the winner while it still names a variation', () => {
    const d = draftOf(loaded);
    d.variations[0]!.weight = '70';
    d.variations[1]!.weight = '30';
    const item = draftItem(d, loaded);
    expect(item).to.deep.equal({
      name: 'hero', status: 'stopped', winner: 'bold', stickiness: 'session', seed: 's1',
      variations: [{ name: 'control', weight: 70, body: { t: 'a' } }, { name: 'bold', weight: 30, body: { t: 'b' } }],
    });
    expect(item).not.to.have.any.keys('version', 'source');
  });

  it('drops the fields of the kind it leaves: a feed has no variations and no winner', () => {
    const d = draftOf(loaded);
    d.kind = 'feed';
    d.feed = '1';
    d.limit = '8';
    expect(draftItem(d, loaded)).to.deep.equal({ name: 'hero', status: 'stopped', stickiness: 'session', seed: 's1', feed: 1, limit: 8 });
  });

  it('starts a new experiment with sequential intervals, and writes only that of its analysis settings', () => {
    const d = draftOf();
    expect(d).to.include({ sequential: true, alpha: '0.05', sequentialTuning: '5000', correction: 'none' });
    d.name = 'new-one';
    const item = draftItem(d);
    expect(item.sequential).to.equal(true);
    expect(item).not.to.have.any.keys('alpha', 'sequentialTuning', 'correction');
  });

  it('keeps an existing experiment\'s analysis settings as they are: none stays none, sequential is not switched on', () => {
    expect(draftItem(draftOf(loaded), loaded)).not.to.have.any.keys('alpha', 'sequential', 'sequentialTuning', 'correction');
    const tuned: Experience = { ...loaded, alpha: 0.1, sequential: true, sequentialTuning: 20000, correction: 'holm-bonferroni' };
    expect(draftItem(draftOf(tuned), tuned)).to.include({ alpha: 0.1, sequential: true, sequentialTuning: 20000, correction: 'holm-bonferroni' });
  });

  const settings: { name: string; change: Partial<ExperienceDraft>; written: Record<string, unknown> }[] = [
    { name: 'a significance level other than 0.05', change: { alpha: '0.01' }, written: { alpha: 0.01 } },
    { name: 'a significance level of 0.05 written out', change: { alpha: '0.050' }, written: {} },
    { name: 'a significance level left empty (the default)', change: { alpha: ' ' }, written: {} },
    { name: 'sequential intervals', change: { sequential: true }, written: { sequential: true } },
    { name: 'a sequential tuning other than 5000', change: { sequential: true, sequentialTuning: '20000' }, written: { sequential: true, sequentialTuning: 20000 } },
    { name: 'a tuning of 5000 (the default)', change: { sequential: true, sequentialTuning: '5000' }, written: { sequential: true } },
    { name: 'a tuning kept while sequential is off', change: { sequentialTuning: '20000' }, written: { sequentialTuning: 20000 } },
    { name: 'a Holm–Bonferroni correction', change: { correction: 'holm-bonferroni' }, written: { correction: 'holm-bonferroni' } },
    { name: 'a Benjamini–Hochberg correction', change: { correction: 'benjamini-hochberg' }, written: { correction: 'benjamini-hochberg' } },
    { name: 'no correction (the default)', change: { correction: 'none' }, written: {} },
  ];
  for (const c of settings) {
    it(`writes ${c.name} as ${JSON.stringify(c.written)}`, () => {
      const item = draftItem({ ...draftOf(loaded), ...c.change }, loaded);
      const written = Object.fromEntries(['alpha', 'sequential', 'sequentialTuning', 'correction'].filter((k) => k in item).map((k) => [k, item[k]]));
      expect(written).to.deep.equal(c.written);
    });
  }

  it('drops the analysis settings of an experiment that becomes content (the service takes them on experiments only)', () => {
    const tuned: Experience = { ...loaded, status: 'draft', winner: undefined, alpha: 0.1, sequential: true, correction: 'holm-bonferroni' };
    const d = draftOf(tuned);
    d.kind = 'content';
    d.body = '{"t": "c"}';
    expect(draftItem(d, tuned)).not.to.have.any.keys('alpha', 'sequential', 'sequentialTuning', 'correction');
  });

  it('creates a draft, restricted to the devices checked, with its condition', () => {
    const d = draftOf();
    d.name = ' new-one ';
    d.devices = ['mobile'];
    d.traffic = '25';
    d.condition = '{"country": "DE"}';
    const item = draftItem(d);
    expect(item).to.include({ name: 'new-one', status: 'draft', traffic: 25 });
    expect(item.devices).to.deep.equal(['mobile']);
    expect(item.condition).to.deep.equal({ country: 'DE' });
  });
});
