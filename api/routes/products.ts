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
import { opContext } from './clients';

/** Registers the product operations on `r`. */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'products.list', method: 'get', path: '/products', scope: 'payment_links.read', testMode: 'unavailable',
    response: listEnvelope(productResponse),
    query: listProductsQuery,
    summary: 'List products, newest first; `archived` narrows to archived (true) or active (false) products.',
    handler: async ({ caller, query }) => paginate(listProducts(caller, query), 'p', query, productView),
  });

  mount(r, {
    id: 'products.create', method: 'post', path: '/products', scope: 'payment_links.write', testMode: 'unavailable',
    response: productResponse,
    body: createProductBody, successStatus: 201,
    handler: async ({ caller, body, ctx }) => productView(await createProduct(opContext(caller, ctx), body)),
  });

  mount(r, {
    id: 'products.get', method: 'get', path: '/products/:id', scope: 'payment_links.read', testMode: 'unavailable',
    response: productResponse,
    handler: async ({ caller, params }) => productView(await getProduct(caller, params.id)),
  });

  mount(r, {
    id: 'products.update', method: 'patch', path: '/products/:id', scope: 'payment_links.write', testMode: 'unavailable',
    response: productResponse,
    body: updateProductBody,
    handler: async ({ caller, params, body, ctx }) => productView(await updateProduct(opContext(caller, ctx), params.id, body)),
  });

  mount(r, {
    id: 'products.archive', method: 'post', path: '/products/:id/archive', scope: 'payment_links.write', testMode: 'unavailable',
    response: productResponse,
    handler: async ({ caller, params, ctx }) => productView(await archiveProduct(opContext(caller, ctx), params.id)),
  });
}
