import type { WebhookPayload } from '../../wire/webhook-events.js';

// What an endpoint of format `slack` receives: Slack's incoming-webhook JSON, a line of text (shown in notifications)
// and blocks (what happened, the numbers, the link), built from the same payload a `standard` endpoint receives.

/** Slack's incoming-webhook message. */
export interface SlackMessage {
  text: string;
  blocks: object[];
}

/** The Slack message of one event. */
export function slackMessage(payload: WebhookPayload): SlackMessage {
  const { data } = payload;
  const text = `${payload.type} in ${data.organization}/${data.project}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `<${data.url}|Open in svc>` }] },
    ],
  };
}
