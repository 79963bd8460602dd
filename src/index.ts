// The public surface of the SDK: every export is named here.
export { ServiceJs } from './service-js.js';
export { VERSION } from './dev-mode.js';
export { FORBIDDEN_TITLES } from './validation.js';
export { SESSION_TIMEOUT_MS } from './identity.js';
export { EVENT_TYPES } from '../wire/event.js';
export { defineElement } from './define-element.js';
export type { ServiceConfig, ConsentPolicy } from './config.js';
export type { ConsentChoice, ConsentRecord } from './consent-store.js';
export type { ServiceEvent, EventType, Attributes } from '../wire/event.js';
export type {
  IdentifyParams, GroupParams, TrackParams, RecordParams, AliasParams, ConsentParams, ProductParams,
  RecommendationParams, ChooseParams, Choice,
} from './params.js';
export type { ServicePlugin, PluginContext, PageContext, EventDraft, ConsentControl } from './plugin.js';
export type { Ids } from './identity.js';
export type { EventKind, KindEventDetail, ErrorEventDetail, ConsentChangeDetail } from './dom-events.js';
