import type { ResolvedConfig } from './config.js';

// The service's endpoints for the configured project, built in one place: every name from the config is
// percent-encoded as one path segment.

type Project = Pick<ResolvedConfig, 'api' | 'organization' | 'project'>;

function projectUrl(config: Project, ...path: string[]): string {
  return [config.api, encodeURIComponent(config.organization), 'projects', encodeURIComponent(config.project), ...path].join('/');
}

/** `POST …/sources/{sourceId}/track`: event batches. */
export function trackUrl(config: Project & Pick<ResolvedConfig, 'sourceId'>): string {
  return projectUrl(config, 'sources', encodeURIComponent(config.sourceId), 'track');
}

/** `POST …/feeds/{id}/data`: a recommendation feed's products. */
export function feedUrl(config: Project, feedId: number | string): string {
  return projectUrl(config, 'feeds', encodeURIComponent(String(feedId)), 'data');
}

/** `POST …/consents/data`: one consent record. */
export function consentUrl(config: Project): string {
  return projectUrl(config, 'consents', 'data');
}

/** `POST …/optimization/choose-api`: the Choose API. */
export function chooseUrl(config: Project): string {
  return projectUrl(config, 'optimization', 'choose-api');
}
