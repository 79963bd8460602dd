import { expect, oneEvent } from '@open-wc/testing';
import sinon from 'sinon';
import type { ServiceEvent } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { autoTrack } from './index.js';

const pages = (events: ServiceEvent[]): ServiceEvent[] => events.filter((e) => e.type === 'page');
const summary = (e: ServiceEvent): [string, unknown] => [e.name, e.data?.url];
// The URL as events carry it: the test runner's own `wtr-session-id` parameter is sensitive by its name.
const sent = (url: string): string => url.replace(/(wtr-session-id=)[^&#]*/, '$1(redacted)');

describe('auto-track: page views in a single-page app', () => {
  const home = location.href;
  let capture: ReturnType<typeof captureEvents>;

  beforeEach(() => {
    stubFetch();
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup(); // removes the plugin first, so going home is not tracked
    history.replaceState(null, '', home);
  });

  it('emits View Page on load with url, path and title, carrying the current page id', () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    const [view] = pages(capture.events);
    expect(view!.name).to.equal('View Page');
    expect(view!.data).to.include({ url: sent(location.href), path: location.pathname, title: document.title });
  });

  const cases: { name: string; go: () => void; navigations: number }[] = [
    { name: 'pushState to a new path', go: () => history.pushState({}, '', '/spa/a'), navigations: 1 },
    { name: 'pushState to a new query', go: () => history.pushState({}, '', '?tab=2'), navigations: 1 },
    { name: 'replaceState to a new path', go: () => history.replaceState({}, '', '/spa/b'), navigations: 1 },
    { name: 'replaceState to the same URL', go: () => history.replaceState({ scroll: 1 }, '', location.href), navigations: 0 },
    { name: 'pushState of new state at the same URL', go: () => history.pushState({ modal: true }, ''), navigations: 0 },
    { name: 'pushState of a fragment only', go: () => history.pushState({}, '', '#section'), navigations: 0 },
    { name: 'two pushStates', go: () => (history.pushState({}, '', '/spa/1'), history.pushState({}, '', '/spa/2')), navigations: 2 },
  ];
  for (const { name, go, navigations } of cases) {
    it(`${name}: ${navigations} View Page and ${navigations} Leave Page`, () => {
      makeSvc().use(autoTrack());
      const before = capture.events.length;
      go();
      const after = capture.events.slice(before);
      expect(after.filter((e) => e.name === 'View Page')).to.have.length(navigations);
      expect(after.filter((e) => e.name === 'Leave Page')).to.have.length(navigations);
    });
  }

  it('pushState, replaceState and back: one Leave Page then one View Page per navigation, with URLs and page ids', async () => {
    const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    const url0 = sent(location.href);
    const origin = location.origin;
    makeSvc().use(autoTrack());
    clock.tick(1000);
    history.pushState({}, '', '/spa/a');
    clock.tick(2000);
    history.replaceState({}, '', '/spa/b');
    clock.tick(3000);
    const popped = oneEvent(window, 'popstate');
    history.back();
    await popped;

    const events = pages(capture.events);
    expect(events.map(summary)).to.deep.equal([
      ['View Page', url0],
      ['Leave Page', url0], ['View Page', `${origin}/spa/a`],
      ['Leave Page', `${origin}/spa/a`], ['View Page', `${origin}/spa/b`],
      ['Leave Page', `${origin}/spa/b`], ['View Page', url0],
    ]);
    const views = events.filter((e) => e.name === 'View Page');
    const leaves = events.filter((e) => e.name === 'Leave Page');
    expect(new Set(views.map((e) => e.pageId)).size).to.equal(4);
    // Each Leave Page belongs to the view before it: in its own ids and in its data.
    leaves.forEach((leave, i) => {
      expect(leave.pageId).to.equal(views[i]!.pageId);
      expect(leave.data!.pageId).to.equal(views[i]!.pageId);
    });
    expect(leaves.map((e) => e.data!.timeOnPageMs)).to.deep.equal([1000, 2000, 3000]);
    expect(views[1]!.data!.referrer).to.equal(url0);
  });

  it('events after a navigation carry the new page id', () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    history.pushState({}, '', '/spa/next');
    svc.track({ eventTitle: 'Read', data: { a: 1 } });
    const views = capture.events.filter((e) => e.name === 'View Page');
    expect(capture.events.at(-1)!.pageId).to.equal(views.at(-1)!.pageId);
  });

  it('pagehide emits one Leave Page; back from the back/forward cache is a new View Page', () => {
    makeSvc().use(autoTrack());
    const [first] = pages(capture.events);
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    const events = pages(capture.events);
    expect(events.map((e) => e.name)).to.deep.equal(['View Page', 'Leave Page', 'View Page']);
    expect(events[1]!.data).to.include({ url: sent(location.href), pageId: first!.pageId });
    expect(events[2]!.pageId).not.to.equal(first!.pageId);
  });

  it('the Leave Page of a pagehide is in the keepalive send of that same pagehide', () => {
    makeSvc().use(autoTrack());
    const fetchStub = window.fetch as sinon.SinonStub;
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
    const sent = fetchStub.getCalls()
      .filter((c) => (c.args[1] as RequestInit).keepalive === true && String(c.args[0]).endsWith('/track'))
      .flatMap((c) => (JSON.parse(String((c.args[1] as RequestInit).body)) as { batch: ServiceEvent[] }).batch);
    expect(sent.map((e) => e.name)).to.include.members(['View Page', 'Leave Page']);
  });

  it('teardown restores the History API and stops tracking', () => {
    const { pushState, replaceState } = history;
    const remove = makeSvc().use(autoTrack());
    expect(history.pushState).not.to.equal(pushState);
    remove();
    expect(history.pushState).to.equal(pushState);
    expect(history.replaceState).to.equal(replaceState);
    const before = capture.events.length;
    history.pushState({}, '', '/spa/untracked');
    expect(capture.events.length).to.equal(before);
  });

  it('page: false and leave: false leave the History API alone', () => {
    const { pushState } = history;
    makeSvc().use(autoTrack({ page: false, leave: false }));
    expect(history.pushState).to.equal(pushState);
    expect(pages(capture.events)).to.deep.equal([]);
  });
});
