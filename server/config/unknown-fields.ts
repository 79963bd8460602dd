import type { ServiceConfigFile } from './config-types.js';

// The fields each level of a config file may have. The validator lets others pass (an older or newer file still
// loads), but a misspelt setting is then silently not applied: `allowedOrigin` leaves CORS open to every origin,
// `limit` leaves the rate limits at their defaults. These names are what the service warns about.
const FIELDS = {
  organization: ['projects', 'adminKeys', 'oidc'],
  oidc: ['issuer', 'clientId', 'clientSecret', 'redirectUri', 'roleClaim'],
  project: ['apiKeys', 'writeKeys', 'sources', 'experiences', 'feeds', 'metrics', 'catalog', 'limits', 'allowedOrigins', 'retention',
    'recommendations'],
  recommendations: ['holdout', 'currency'],
  limits: ['writeKeyPerSecond', 'apiKeyPerSecond'],
  retention: ['eventsDays', 'exposuresDays'],
  experience: ['name', 'group', 'devices', 'traffic', 'stickiness', 'variations', 'body', 'feed', 'limit', 'condition',
    'namespace', 'seed', 'hashVersion', 'status', 'winner', 'alpha', 'sequential', 'sequentialTuning', 'correction',
    'goals', 'secondary', 'guardrails', 'stopOnSrm', 'stoppedBy', 'randomization'],
  variation: ['name', 'weight', 'body'],
  metric: ['name', 'event', 'type', 'value', 'distinct', 'where', 'windowHours', 'cuped', 'cupedDays', 'numerator', 'denominator',
    'inverse', 'cap'],
  cap: ['type', 'value', 'ignoreZeros'],
  feed: ['id', 'strategy', 'attributionHours', 'limit', 'dedupe', 'rules', 'exclude', 'purchasedDays', 'fallback'],
} as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownOf(value: unknown, known: readonly string[], path: string): string[] {
  return isObject(value) ? Object.keys(value).filter((key) => !known.includes(key)).map((key) => `${path}.${key}`) : [];
}

function listed(list: unknown, known: readonly string[], path: string): string[] {
  return Array.isArray(list) ? list.flatMap((item, i) => unknownOf(item, known, `${path}[${i}]`)) : [];
}

/**
 * The paths of the fields a (validated) config file has that the service does not know, in file order.
 * @example unknownFields({ organizations: { acme: { projects: { shop: { …, allowedOrigin: [] } } } } })
 *   // → ['organizations.acme.projects.shop.allowedOrigin']
 */
export function unknownFields(config: ServiceConfigFile): string[] {
  const found = unknownOf(config, ['organizations'], '').map((path) => path.slice(1));
  for (const [orgName, org] of Object.entries(config.organizations)) {
    const orgPath = `organizations.${orgName}`;
    found.push(...unknownOf(org, FIELDS.organization, orgPath), ...unknownOf(org.oidc, FIELDS.oidc, `${orgPath}.oidc`));
    for (const [projectName, project] of Object.entries(org.projects)) {
      const path = `${orgPath}.projects.${projectName}`;
      found.push(...unknownOf(project, FIELDS.project, path), ...unknownOf(project.limits, FIELDS.limits, `${path}.limits`),
        ...unknownOf(project.retention, FIELDS.retention, `${path}.retention`),
        ...unknownOf(project.recommendations, FIELDS.recommendations, `${path}.recommendations`));
      found.push(...listed(project.experiences, FIELDS.experience, `${path}.experiences`));
      (project.experiences ?? []).forEach((experience, i) => {
        found.push(...listed(experience.variations, FIELDS.variation, `${path}.experiences[${i}].variations`));
      });
      found.push(...listed(project.metrics, FIELDS.metric, `${path}.metrics`), ...listed(project.feeds, FIELDS.feed, `${path}.feeds`));
      (project.metrics ?? []).forEach((metric, i) => found.push(...unknownOf(metric.cap, FIELDS.cap, `${path}.metrics[${i}].cap`)));
    }
  }
  return found;
}
