// The Slack message of every event type: the notification's line, what happened in words, the numbers as fields, who
// did it and the console's button; names escaped so that they cannot become Slack markup (a link, an @channel).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escape, slackMessage, type SlackMessage } from '../../../server/webhooks/slack-message.js';
import { WEBHOOK_EVENT_TYPES, type WebhookActor, type WebhookDataByType, type WebhookPayload } from '../../../wire/webhook-events.js';

const URL = 'https://svc.example.com/admin/?organization=acme&project=shop#/experiences/hero/results';
const PERSON: WebhookActor = { type: 'person', name: 'ana@example.com' };
const WATCH: WebhookActor = { type: 'service', name: 'svc guardrail watch' };

function payload<T extends keyof WebhookDataByType>(type: T, data: WebhookDataByType[T]): WebhookPayload {
  return { type, timestamp: '2026-12-01T10:00:00.000Z', data: { ...data, organization: 'acme', project: 'shop', url: URL } } as WebhookPayload;
}

/** The message read as a person sees it: the line, the words under it, the fields, the context and the button's link. */
function read(message: SlackMessage): { text: string; words: string; fields: string[]; context: string; link: string } {
  const blocks = message.blocks as { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: { text: unknown; url?: string }[] }[];
  assert.deepEqual(blocks.map((b) => b.type).filter((t) => t !== 'section'), ['context', 'actions']);
  const [words, fields] = blocks.filter((b) => b.type === 'section');
  const button = blocks.find((b) => b.type === 'actions')!.elements![0]!;
  assert.deepEqual(button.text, { type: 'plain_text', text: 'Open in svc' });
  return {
    text: message.text,
    words: words!.text!.text,
    fields: (fields?.fields ?? []).map((f) => f.text.replace('\n', ': ').replaceAll('\n', ' | ')),
    context: String(blocks.find((b) => b.type === 'context')!.elements![0]!.text),
    link: button.url!,
  };
}

describe('the Slack message of each event', () => {
  it('experiment.started: the weights and traffic it runs with, and who started it', () => {
    assert.deepEqual(read(slackMessage(payload('experiment.started', {
      experience: 'hero', phase: 1, weights: { control: 50, bold: 50 }, traffic: 100, by: PERSON,
    }))), {
      text: 'Experiment hero started (acme/shop)', words: '*Experiment hero started*',
      fields: ['*Phase*: 1', '*Weights*: control 50 % · bold 50 %', '*Traffic*: 100 %'], context: 'acme/shop · by ana@example.com', link: URL,
    });
    assert.equal(slackMessage(payload('experiment.started', {
      experience: 'hero', phase: 3, weights: { control: 50, bold: 50 }, traffic: 100, by: PERSON,
    })).text, 'Experiment hero restarted (acme/shop)');
  });

  it('experiment.stopped by a guardrail: the metric, variation, uplift, interval and adjusted p-value it was stopped on', () => {
    assert.deepEqual(read(slackMessage(payload('experiment.stopped', {
      experience: 'hero', reason: 'guardrail', phase: 2, by: WATCH, stoppedBy: {
        rule: 'guardrail', at: '2026-12-01T10:00:00.000Z', metric: 'errors', variation: 'bold', uplift: 0.253, ci: [0.081, 0.425],
        pValue: 0.0004, pValueAdjusted: 0.0016, familySize: 4, correction: 'holm-bonferroni', units: 5120, phase: 2,
      },
    }))), {
      text: 'Experiment hero stopped: bold harmed the guardrail errors (acme/shop)',
      words: '*Experiment hero stopped: bold harmed the guardrail errors*\nThe service stopped it by itself: the harm is significant across every guardrail × challenger.',
      fields: [
        '*Metric*: errors', '*Variation*: bold', '*Uplift*: +25.3 %', '*Interval*: +8.1 % to +42.5 %',
        '*p-value adjusted*: 0.0016 (Holm over 4 tests)', '*Units*: 5120', '*Phase*: 2',
      ],
      context: 'acme/shop · by the service (svc guardrail watch)', link: URL,
    });
  });

  it('experiment.stopped for a mismatch, for a winner, by hand', () => {
    const srm = read(slackMessage(payload('experiment.stopped', {
      experience: 'hero', reason: 'srm', phase: 1, by: WATCH, stoppedBy: { rule: 'srm', at: '2026-12-01T10:00:00.000Z', srmPValue: 0.00002, units: 160, phase: 1 },
    })));
    assert.deepEqual([srm.text, srm.fields], ['Experiment hero stopped: sample-ratio mismatch (acme/shop)', ['*p-value*: < 0.0001', '*Units*: 160', '*Phase*: 1']]);
    const winner = read(slackMessage(payload('experiment.stopped', { experience: 'hero', reason: 'winner', winner: 'bold', phase: 2, by: PERSON })));
    assert.deepEqual([winner.text, winner.fields], ['Experiment hero stopped: bold is the winner (acme/shop)', ['*Winner*: bold', '*Phase*: 2']]);
    const byKey = read(slackMessage(payload('experiment.stopped', { experience: 'hero', reason: 'person', phase: null, by: { type: 'key', name: 'ci-deploy' } })));
    assert.deepEqual([byKey.text, byKey.fields, byKey.context], ['Experiment hero stopped (acme/shop)', [], 'acme/shop · by ci-deploy']);
  });

  it('experiment.phase_started: each change, and each weight before → after', () => {
    const m = read(slackMessage(payload('experiment.phase_started', {
      experience: 'hero', phase: 2, changes: ['weights 50/50 → 20/80', 'traffic 100 % → 50 %'],
      before: { weights: { control: 50, bold: 50 }, traffic: 100 }, after: { weights: { control: 20, bold: 80 }, traffic: 50 }, by: PERSON,
    })));
    assert.deepEqual(m, {
      text: 'Experiment hero: phase 2 started (acme/shop)',
      words: '*Experiment hero: phase 2 started*\n• weights 50/50 → 20/80\n• traffic 100 % → 50 %',
      fields: ['*Phase*: 2', '*Weights*: control: 50 % → 20 % | bold: 50 % → 80 %', '*Traffic*: 100 % → 50 %'],
      context: 'acme/shop · by ana@example.com', link: URL,
    });
  });

  it('experiment.srm_detected: the p-value, the units and the weights they should follow', () => {
    const m = read(slackMessage(payload('experiment.srm_detected', {
      experience: 'hero', phase: 2, pValue: 0.00031, units: { control: 120, bold: 40 }, weights: { control: 50, bold: 50 },
    })));
    assert.equal(m.text, 'Sample-ratio mismatch in experiment hero (acme/shop)');
    assert.deepEqual(m.fields, ['*p-value*: 0.00031', '*Units*: control 120 · bold 40', '*Weights*: control 50 % · bold 50 %', '*Phase*: 2']);
    assert.equal(m.context, 'acme/shop');
  });

  it('experiment.significant: the metric, the uplift and its interval at the experiment\'s level, the test', () => {
    const m = read(slackMessage(payload('experiment.significant', {
      experience: 'hero', phase: 2, metric: 'purchase', variation: 'bold', baseline: 'control', direction: 'better',
      uplift: 0.124, ci: [0.031, 0.217], pValue: 0.0087, pValueAdjusted: 0.017, alpha: 0.1, sequential: true,
    })));
    assert.equal(m.text, 'Experiment hero: bold is significantly better on purchase (acme/shop)');
    assert.deepEqual(m.fields, [
      '*Metric*: purchase', '*Variation*: bold vs control', '*Uplift*: +12.4 %', '*Interval (90 %)*: +3.1 % to +21.7 %',
      '*p-value*: 0.0087', '*p-value adjusted*: 0.017', '*Test*: sequential', '*Phase*: 2',
    ]);
    const worse = slackMessage(payload('experiment.significant', {
      experience: 'hero', phase: 1, metric: 'errors', variation: 'bold', baseline: 'control', direction: 'worse',
      uplift: -0.05, ci: [-0.09, -0.01], pValue: 0.02, alpha: 0.05, sequential: false,
    }));
    assert.equal(worse.text, 'Experiment hero: bold is significantly worse on errors (acme/shop)');
    assert.deepEqual(read(worse).fields.slice(2, 4), ['*Uplift*: -5.0 %', '*Interval (95 %)*: -9.0 % to -1.0 %']);
  });

  it('bandit.reweighted: each weight before → after, why, and each arm\'s chance of being best', () => {
    const m = read(slackMessage(payload('bandit.reweighted', {
      experience: 'hero', weights: { control: 12, bold: 88 }, previous: { control: 50, bold: 50 }, reason: 'thompson',
      probabilityBest: { control: 0.031, bold: 0.969 }, by: { type: 'service', name: 'svc bandit' },
    })));
    assert.deepEqual([m.text, m.fields, m.context], ['Bandit hero reweighted (acme/shop)', [
      '*Weights*: control: 50 % → 12 % | bold: 50 % → 88 %', '*Reason*: Thompson sampling', '*Chance of being best*: control 3 % · bold 97 %',
    ], 'acme/shop · by the service (svc bandit)']);
    const manual = read(slackMessage(payload('bandit.reweighted', {
      experience: 'hero', weights: { control: 30, bold: 70 }, previous: { control: 50, bold: 50 }, reason: 'manual', by: PERSON,
    })));
    assert.deepEqual(manual.fields, ['*Weights*: control: 50 % → 30 % | bold: 50 % → 70 %', '*Reason*: set by hand']);
  });

  it('privacy.request_done: the request and its counts', () => {
    const m = read(slackMessage(payload('privacy.request_done', { request: 'er_0123', kind: 'erasure', status: 'done', counts: { events: 40, exposures: 3 } })));
    assert.deepEqual([m.text, m.fields], ['Erasure request er_0123 done (acme/shop)', ['*Request*: er_0123', '*Rows erased*: events 40 · exposures 3']]);
    const empty = read(slackMessage(payload('privacy.request_done', { request: 'ex_9', kind: 'export', status: 'done', counts: {} })));
    assert.deepEqual([empty.text, empty.fields], ['Export request ex_9 done (acme/shop)', ['*Request*: ex_9', '*Rows found*: none']]);
  });

  it('feed.changed and webhook.test', () => {
    const feed = read(slackMessage(payload('feed.changed', { feed: 7, action: 'deleted', by: PERSON })));
    assert.deepEqual([feed.text, feed.fields, feed.context], ['Feed 7 deleted (acme/shop)', [], 'acme/shop · by ana@example.com']);
    const test = read(slackMessage(payload('webhook.test', { endpoint: 'ep_1', message: 'Hello from svc.' })));
    assert.deepEqual([test.text, test.words, test.fields], ['Test event from svc (acme/shop)', '*Test event from svc*\nHello from svc.', ['*Endpoint*: ep_1']]);
  });

  it('has a test above for every event type (a new type needs its message and its test)', () => {
    const covered = ['experiment.started', 'experiment.stopped', 'experiment.phase_started', 'experiment.srm_detected', 'experiment.significant',
      'bandit.reweighted', 'privacy.request_done', 'feed.changed'];
    assert.deepEqual([...WEBHOOK_EVENT_TYPES].sort(), covered.sort());
  });

  it('escapes &, < and > in names, so that a name cannot become a link or a mention', () => {
    assert.equal(escape('<!channel> & <https://evil.example|click>'), '&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    const m = slackMessage(payload('experiment.significant', {
      experience: '<!channel>', phase: 1, metric: 'a&b', variation: '<bold>', baseline: 'control', direction: 'better',
      uplift: 0.1, ci: [0.01, 0.2], pValue: 0.01, alpha: 0.05, sequential: false,
    }));
    assert.equal(m.text, 'Experiment &lt;!channel&gt;: &lt;bold&gt; is significantly better on a&amp;b (acme/shop)');
    const json = JSON.stringify(m.blocks);
    for (const raw of ['<!channel>', '<bold>', 'a&b']) assert.ok(!json.includes(raw), `${raw} in ${json}`);
  });
});
