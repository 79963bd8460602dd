// Registers the console's elements. The page loads one copy of dist/svc-admin.js, but a second script tag (or a test
// that defines them too) must not make `customElements.define` throw: a tag already defined is left as it is.
import { SvcAdmin } from './admin-app.js';
import { SvcAdminAccess } from './access-page.js';
import { SvcAdminAccount } from './account-page.js';
import { SvcAdminAudit } from './audit-log.js';
import { SvcAdminBanditWeights } from './bandit-weights.js';
import { SvcAdminConfirm } from './confirm-dialog.js';
import { SvcAdminEditor } from './experience-editor.js';
import { SvcAdminExperiences } from './experience-list.js';
import { SvcAdminFeedReport } from './feed-report-page.js';
import { SvcAdminFeeds } from './feeds-page.js';
import { SvcAdminFeedEditor } from './feed-editor.js';
import { SvcAdminFeedPreview } from './feed-preview-panel.js';
import { SvcAdminInvitation } from './invitation-page.js';
import { SvcAdminMetrics } from './metrics-page.js';
import { SvcAdminPlan } from './plan-page.js';
import { SvcAdminPrivacy } from './privacy-page.js';
import { SvcAdminResults } from './results-page.js';
import { SvcAdminSignIn } from './sign-in-form.js';
import { SvcAdminWebhookDeliveries } from './webhook-deliveries.js';
import { SvcAdminWebhookForm } from './webhook-form.js';
import { SvcAdminWebhooks } from './webhooks-page.js';

const ELEMENTS: [string, CustomElementConstructor][] = [
  ['svc-admin', SvcAdmin],
  ['svc-admin-sign-in', SvcAdminSignIn],
  ['svc-admin-experiences', SvcAdminExperiences],
  ['svc-admin-editor', SvcAdminEditor],
  ['svc-admin-audit', SvcAdminAudit],
  ['svc-admin-privacy', SvcAdminPrivacy],
  ['svc-admin-metrics', SvcAdminMetrics],
  ['svc-admin-results', SvcAdminResults],
  ['svc-admin-plan', SvcAdminPlan],
  ['svc-admin-bandit-weights', SvcAdminBanditWeights],
  ['svc-admin-confirm', SvcAdminConfirm],
  ['svc-admin-access', SvcAdminAccess],
  ['svc-admin-account', SvcAdminAccount],
  ['svc-admin-invitation', SvcAdminInvitation],
  ['svc-admin-feeds', SvcAdminFeeds],
  ['svc-admin-feed-report', SvcAdminFeedReport],
  ['svc-admin-feed-editor', SvcAdminFeedEditor],
  ['svc-admin-feed-preview', SvcAdminFeedPreview],
  ['svc-admin-webhooks', SvcAdminWebhooks],
  ['svc-admin-webhook-form', SvcAdminWebhookForm],
  ['svc-admin-webhook-deliveries', SvcAdminWebhookDeliveries],
];

/**
 * Defines `<svc-admin>` and the elements it is made of, each once.
 * @example defineAdmin(); document.body.append(document.createElement('svc-admin'));
 */
export function defineAdmin(): void {
  for (const [tag, element] of ELEMENTS) {
    if (!customElements.get(tag)) customElements.define(tag, element);
  }
}
