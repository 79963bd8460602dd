// <svc-recommendations>' properties and renders keep what Lit gave them before the element moved to SvcElement:
// attributes converted to properties, only `status` reflected, a property set before the upgrade applied, and a render
// that changes nothing the cards show leaves them (and their images) in place. Against the running service, as
// recommendations-element.test.ts.
import { expect, fixture, html } from '@open-wc/testing';
import { cleanup, makeSvc } from '../../test/helpers/svc.js';
import { recommendations, type SvcRecommendations } from './index.js';
import { settled } from '../../test/helpers/settled.js';

function install(): () => void {
  return makeSvc({ api: `${location.origin}/v1`, project: 'shop', writeKey: 'web1.p4ss' }).use(recommendations());
}

const cards = (el: SvcRecommendations) => [...el.shadowRoot!.querySelectorAll('li')];

describe('<svc-recommendations> properties', () => {
  let remove: (() => void) | undefined;
  afterEach(async () => {
    remove?.();
    remove = undefined;
    await cleanup();
  });

  // First in this file: the tag is not defined yet.
  it('applies a property set before the element was defined, over its attribute', async () => {
    expect(customElements.get('svc-recommendations')).to.equal(undefined);
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="3"></svc-recommendations>`);
    el.limit = 2;
    remove = install();
    await settled(el);
    expect(el.limit).to.equal(2);
    expect(cards(el)).to.have.length(2);
  });

  it('converts attributes as Lit did: numbers, presence, product-id; null once removed', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="2" product-id="p1"></svc-recommendations>`);
    expect(el.feed).to.equal(1);
    expect(el.limit).to.equal(2);
    expect(el.productId).to.equal('p1');
    el.setAttribute('lazy', '');
    expect(el.lazy).to.equal(true);
    el.removeAttribute('lazy');
    expect(el.lazy).to.equal(false);
    el.removeAttribute('product-id');
    expect(el.productId).to.equal(null);
    await settled(el);
  });

  it('reflects status, and no other property', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="2"></svc-recommendations>`);
    await settled(el);
    expect(el.getAttribute('status')).to.equal('ready');
    el.limit = 3;
    await el.updateComplete;
    expect(el.getAttribute('status')).to.equal('loading');
    await settled(el);
    expect(cards(el)).to.have.length(3);
    expect(el.getAttribute('limit')).to.equal('2');
    expect(el.getAttribute('status')).to.equal('ready');
  });

  it('keeps its cards, images included, through a render that changes nothing they show', async () => {
    remove = install();
    // Feed 1 is the shop's popular products, which other files' events reorder: enough cards for some to have images.
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="8"></svc-recommendations>`);
    await settled(el);
    const before = [...el.shadowRoot!.querySelectorAll('li, img')];
    expect(before.filter((node) => node.localName === 'img'), 'cards with images').not.to.be.empty;
    el.lazy = true;
    el.remove();
    document.body.append(el);
    await el.updateComplete;
    expect([...el.shadowRoot!.querySelectorAll('li, img')]).to.deep.equal(before);
  });
});
