// The recommendation feeds' requests and answers: one feed, a page's batch, a feed's report and preview.
import Type from 'typebox';
import { Count, Id, Interval, IsoTime, Nullable, Omittable } from './schema-parts.js';
import { FeedItemSchema } from './item-schema.js';

const ProductId = Type.Union([Id(), Type.Integer()], { description: 'A product id (a platform\'s numeric id too).' });

const ListShape = {
  limit: Type.Integer({ minimum: 1, maximum: 100, description: 'How many products.' }),
  fields: Type.Array(Type.String({ minLength: 1 }), { description: 'The product fields to answer besides `id`.' }),
  productId: Omittable(ProductId),
};

const Visitor = {
  profileId: Id(),
  sourceId: Id('One of the project\'s sources.'),
  sessionId: Type.Optional(Nullable(Id())),
  excludeProducts: Type.Optional(Nullable(Type.Array(ProductId, { description: 'What other widgets of the page show.' }))),
};

export const FeedBody = Type.Object({ ...Visitor, ...ListShape });

const Product = Type.Object({ id: Type.String() }, { additionalProperties: true, description: 'The product\'s id and the fields asked for (links made absolute).' });

const Holdout = Type.Object({ products: Type.Array(Product, { maxItems: 0 }), holdout: Type.Literal(true) }, {
  description: 'The person is in the project\'s recommendations holdout: no products.',
});

export const FeedAnswer = Type.Union([
  Type.Object({ products: Type.Array(Product), recommendationId: Type.String({ description: 'Clicks and carts are credited to it.' }) }),
  Holdout,
]);

export const FeedBatchBody = Type.Object({
  ...Visitor,
  productId: Type.Optional(ProductId),
  requests: Type.Array(Type.Object({ feed: Type.Integer({ description: 'The feed id.' }), ...ListShape }), { minItems: 1, maxItems: 20 }),
});

const FeedError = Type.Object({ code: Type.String(), message: Type.String() });

export const FeedBatchAnswer = Type.Object({
  answers: Type.Array(Type.Union([
    Type.Object({ feed: Type.Unknown(), products: Type.Array(Product), recommendationId: Type.String() }),
    Type.Object({ feed: Type.Unknown(), products: Type.Array(Product, { maxItems: 0 }), holdout: Type.Literal(true) }),
    Type.Object({ feed: Type.Optional(Type.Unknown()), error: FeedError }, { description: 'This request alone was refused (its fields, or an unknown feed).' }),
  ]), { description: 'In the requests\' order.' }),
});

const Money = Type.Record(Type.String(), Type.Number(), { description: 'Per currency.' });

const ReportNumbers = {
  impressions: Count(),
  clicks: Count(),
  ctr: Type.Number({ description: 'clicks / impressions; 0 without impressions.' }),
  ctrInterval: Nullable(Interval, { description: 'Wilson 95 % interval of the click-through rate.' }),
  carts: Count('Credited `Added to cart` events.'),
  orders: Count('Credited `Product ordered` events (order lines).'),
  revenue: Money,
  revenuePer1000: Type.Record(Type.String(), Nullable(Type.Number()), { description: 'revenue ÷ impressions × 1000, per currency.' }),
  revenueSources: Type.Object({ event: Count(), catalog: Count(), unpriced: Count() }, { description: 'Where the credited order lines\' prices came from.' }),
};

export const FeedReportQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time, or epoch ms (default: 30 days before `to`).' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time, or epoch ms (default: now).' })),
  by: Type.Optional(Type.Union([Type.Literal('position'), Type.Literal('day'), Type.Literal('strategy')], { description: 'Rows by the card\'s position, the UTC day or the strategy.' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'Default json.' })),
  attributionHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'The credit window (default: the feed\'s, or 24).' })),
});

export const FeedReportAnswer = Type.Object({
  feed: Type.Integer(),
  from: IsoTime(),
  to: IsoTime(),
  attributionHours: Type.Integer(),
  totals: Type.Object(ReportNumbers),
  rows: Type.Optional(Type.Array(Type.Object({
    ...ReportNumbers,
    position: Type.Optional(Type.Integer()),
    day: Type.Optional(Type.String()),
    strategy: Type.Optional(Type.String()),
  }), { description: 'Only with `by`, sorted by its key.' })),
});

export const FeedPreviewBody = Type.Object({
  feed: FeedItemSchema,
  productId: Type.Optional(Id()),
  profileId: Type.Optional(Id()),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});

const PreviewProduct = Type.Object({ id: Type.String(), title: Type.Optional(Type.String()) });

export const FeedPreviewAnswer = Type.Object({
  strategies: Type.Array(Type.Object({ strategy: Type.String(), products: Type.Array(PreviewProduct) }), {
    description: 'Each strategy\'s own list, without rules or fallbacks.',
  }),
  feed: Type.Object({
    products: Type.Array(PreviewProduct),
    removed: Type.Array(Type.Object({
      id: Type.String(),
      reason: Type.Union(['page-product', 'excluded-id', 'in-cart', 'purchased', 'viewed', 'filtered', 'unavailable', 'not-in-catalog', 'cut'].map((r) => Type.Literal(r))),
      pin: Type.Optional(Type.Integer()),
      rule: Type.Optional(Type.Integer()),
      field: Type.Optional(Type.String()),
    }), { description: 'What the rules left out, and why.' }),
  }),
});

export const CatalogProduct = Type.Object({
  id: Id(),
  title: Type.Optional(Type.String()),
  price: Type.Optional(Type.Number()),
  currency: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  image: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  brand: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  inventory: Type.Optional(Type.Number()),
  available: Type.Optional(Type.Boolean()),
}, { additionalProperties: true, $id: 'Product', description: 'A catalog product; other fields are kept and can be asked for by a feed.' });

export const CatalogPatch = Type.Array(Type.Object({
  id: Id(),
  available: Type.Optional(Type.Boolean()),
  inventory: Type.Optional(Type.Number()),
  price: Type.Optional(Type.Number()),
}), { minItems: 1 });

export const CatalogPatchAnswer = Type.Object({ updated: Count(), notFound: Type.Array(Type.String(), { description: 'Ids the catalog does not hold (reported, not refused).' }) });

export const CatalogSearchAnswer = Type.Object({
  products: Type.Array(Type.Object({
    id: Type.String(), title: Type.Optional(Type.String()), category: Type.Optional(Type.String()), price: Type.Optional(Type.Number()), available: Type.Boolean(),
  })),
});
