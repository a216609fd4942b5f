/**
 * Products (spec 2.3 Product, 4.1): GET/POST /products, GET/PATCH /products/{id}, POST
 * /products/{id}/archive. Scopes `payment_links.read` / `.write`; not available in test mode.
 * Foreign ids are 404; archived products stay readable. Thin routes over activities/catalog/.
 */
import type Router from '@koa/router';
import { archiveProduct, createProduct, updateProduct } from '../../activities/catalog/commands';
import { getProduct, listProducts } from '../../activities/catalog/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import { createProductBody, listProductsQuery, updateProductBody } from '../schemas/payment-links';
import { productResponse, productView } from '../../views/product';
import { listEnvelope } from '../../views/schema';

/** Registers the product operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'products.list',
    method: 'get',
    path: '/products',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: listEnvelope(productResponse),
    query: listProductsQuery,
    summary: 'List products, newest first; `archived` narrows to archived (true) or active (false) products.',
    handler: async ({ scope, query }) => paginate(listProducts(scope, query), 'p', query, productView),
  });

  mount(router, {
    id: 'products.create',
    method: 'post',
    path: '/products',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: productResponse,
    body: createProductBody,
    successStatus: 201,
    handler: async ({ scope, body }) => productView(await createProduct(scope, body)),
  });

  mount(router, {
    id: 'products.get',
    method: 'get',
    path: '/products/:id',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: productResponse,
    handler: async ({ scope, params }) => productView(await getProduct(scope, { id: params.id })),
  });

  mount(router, {
    id: 'products.update',
    method: 'patch',
    path: '/products/:id',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: productResponse,
    body: updateProductBody,
    handler: async ({ scope, params, body }) => productView(await updateProduct(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'products.archive',
    method: 'post',
    path: '/products/:id/archive',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: productResponse,
    handler: async ({ scope, params }) => productView(await archiveProduct(scope, { id: params.id })),
  });
}
