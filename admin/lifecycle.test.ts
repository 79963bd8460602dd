// The lifecycle steps the list offers, and the item each one writes.
import { expect } from '@open-wc/testing';
import type { Experience } from './experience.js';
import { actionsFor, applyAction, consequence } from './lifecycle.js';

const experiment = (status: Experience['status'], winner?: string): Experience => ({
  name: 'hero', version: 2, source: 'api', status, ...(winner ? { winner } : {}),
  variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }],
});
const content: Experience = { name: 'note', version: 1, source: 'file', status: 'running', body: { text: 'hi' } };

const offered: [string, Experience, string[]][] = [
  ['a draft', experiment('draft'), ['start']],
  ['a running experiment', experiment('running'), ['stop', 'ship']],
  ['a stopped experiment', experiment('stopped'), ['start', 'ship']],
  ['a shipped experiment', experiment('stopped', 'bold'), ['start']],
  ['running content (no variation to ship)', content, ['stop']],
];

describe('lifecycle', () => {
  for (const [name, e, actions] of offered) {
    it(`offers ${actions.join(', ')} for ${name}`, () => expect(actionsFor(e)).to.deep.equal(actions));
  }

  it('ships: stopped with the winner, the rest of the item as read, without version or source', () => {
    expect(applyAction(experiment('running'), 'ship', 'bold')).to.deep.equal({
      name: 'hero', status: 'stopped', winner: 'bold', variations: experiment('running').variations,
    });
  });

  it('starts a shipped experiment again without its winner (a winner is only allowed while stopped)', () => {
    expect(applyAction(experiment('stopped', 'bold'), 'start')).to.not.have.property('winner');
    expect(applyAction(experiment('stopped', 'bold'), 'start').status).to.equal('running');
  });

  it('says who gets what before shipping', () => {
    expect(consequence(experiment('running'), 'ship', 'bold')).to.equal("Everyone will get 'bold'; no more exposures are recorded. The results stay readable.");
  });
});
