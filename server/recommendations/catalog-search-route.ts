import Type from 'typebox';
import { CatalogSearchAnswer } from '../../wire/api/feed-schema.js';
import type { FoundProduct } from '../../wire/feed-preview.js';
import type { ProductConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import { listLimit } from '../http/list-limit.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { CATALOG_PATH } from './catalog-route.js';

/** The longest search text: an id or a few words of a title. */
const MAX_QUERY = 200;
const SEARCH_LIMIT = { default: 20, max: 100 };

/** `%`, `_` and the escape itself, escaped for `LIKE … ESCAPE '\'`: the text is matched as typed. */
const likeText = (text: string): string => text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_');

/**
 * Products whose id starts with `q` or whose title contains it (case-insensitive), by id; every product for an empty
 * `q`. Unavailable ones too: a page about a sold-out product still shows its feeds.
 */
function* searchProgram(project: string, q: string, limit: number): SqlProgram<FoundProduct[]> {
  const { rows } = yield op(
    `SELECT product_id, available, data FROM catalog_products
     WHERE project = ? AND (product_id LIKE ? ESCAPE '\\' OR lower(json_extract(data, '$.title')) LIKE ? ESCAPE '\\')
     ORDER BY product_id LIMIT ?`,
    project, `${likeText(q)}%`, `%${likeText(q.toLowerCase())}%`, limit,
  );
  return rows.map((r) => {
    const product = JSON.parse(str(r.data)) as ProductConfig;
    return {
      id: str(r.product_id),
      ...(typeof product.title === 'string' ? { title: product.title } : {}),
      ...(typeof product.category === 'string' ? { category: product.category } : {}),
      ...(typeof product.price === 'number' ? { price: product.price } : {}),
      available: num(r.available) === 1,
    };
  });
}

/**
 * `GET /v1/{org}/projects/{project}/catalog?q=&limit=` (a viewer's session or admin key): `{products: [{id, title?,
 * category?, price?, available}]}`, the products whose id starts with `q` or whose title holds it — what the console's
 * feed preview picks a product from.
 */
export function catalogSearchRoute(ctx: { storage: Storage }): ApiRoute {
  return apiRoute<{ Params: ProjectParams; Querystring: Record<string, string | undefined> }>({
    method: 'GET',
    path: CATALOG_PATH,
    tag: 'Recommendations',
    summary: 'Search the catalog',
    description: 'Products whose id starts with `q` or whose title holds it (case-insensitive), by id; unavailable ones too.',
    access: { kind: 'project', keys: ['adminKey'], role: 'viewer' },
    request: {
      query: Type.Object({
        q: Type.Optional(Type.String({ maxLength: MAX_QUERY, description: 'Default: every product.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT.max, description: `Default ${SEARCH_LIMIT.default}.` })),
      }),
    },
    answers: { 200: { description: 'The products found.', json: CatalogSearchAnswer } },
    errors: ['invalid_request'],
    handler: async (request) => {
      const q = request.query.q ?? '';
      if (q.length > MAX_QUERY) throw new ServiceError('invalid_request', `q: must be at most ${MAX_QUERY} characters`);
      const limit = listLimit(request.query.limit, SEARCH_LIMIT);
      return { products: await ctx.storage.run(() => searchProgram(request.auth!.project.key, q.trim(), limit)) };
    },
  });
}
