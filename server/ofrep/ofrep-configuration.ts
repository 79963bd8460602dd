import type { OfrepConfiguration } from '../../wire/api/ofrep-schema.js';

/**
 * What `GET /ofrep/v1/configuration` tells a provider. Polling: changes made through the management API reach every
 * node within a second, so polling faster shows nothing new. Values: every flag's value is an experience's body, an
 * object. Caching: a server provider may keep an evaluation for that same second; assignments are stored, so a fresh
 * evaluation of the same context would answer the same.
 */
export const OFREP_CONFIGURATION: OfrepConfiguration = {
  name: 'svc',
  capabilities: {
    cacheInvalidation: { polling: { enabled: true, minPollingIntervalMs: 1000 } },
    flagEvaluation: { supportedTypes: ['object'] },
    caching: { enabled: true, ttl: 1000 },
  },
};
