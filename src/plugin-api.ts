// What plugins may use from the core beyond the public surface (src/index.ts): the helpers the bundled plugins share.
// Plugins import from src/ only this file and src/index.ts (test/build/import-boundaries.test.ts checks), so the
// core's other files can change without reaching into a plugin.
export { addedToCart, productsOrdered, productViewed, toQuantity, whenReady } from './commerce-events.js';
export type { ProductLine } from './commerce-events.js';
export { guard, listen } from './guarded-listener.js';
export { bindFields, safeUrl, textOf } from './bind-fields.js';
export { KEYS, LocalStore } from './local-store.js';
export type { AutoTrackOptions } from './config.js';
export { InstanceSlot } from './instance-slot.js';
export { detectDevice } from './device.js';
export { EXPOSURE_EVENT } from '../wire/event.js';
export type {
  AbsoluteDifference, CupedFigures, DimensionResult, MetricCap, MetricResult, MetricType, PValueCorrection, ResultsAnalysis,
  ResultsAnswer, VariationStats, VariationUnits,
} from '../wire/results-answer.js';
export { css, h, SvcElement } from './svc-element.js';
