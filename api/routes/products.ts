/**
 * Products (spec 2.3 Product, 4.1): GET/POST /products, GET/PATCH /products/{id}, POST
 * /products/{id}/archive. Scopes `payment_links.read` / `.write`; not available in test mode.
 * Foreign ids are 404; archived products stay readable. Thin routes over activities/links.ts.
 */
import type Router from '@koa/router';
import { notFound } from '../../domain/errors';
import { archiveProduct, createProduct, updateProduct } from '../../activities/payment-links/commands';
import { Product } from '../../entities';
import { db } from '../../lib/db';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../pagination';
import { createProductBody, listProductsQuery, updateProductBody } from '../schemas/payment-links';
import { productResponse, productView } from '../../views/product';
import { listEnvelope } from '../../views/schema';
import { likeContains, opContext } from './clients';

/** Registers the product operations on `r`. */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'products.list', method: 'get', path: '/products', scope: 'payment_links.read', testMode: 'unavailable',
    response: listEnvelope(productResponse),
    query: listProductsQuery,
    summary: 'List products, newest first; `archived` narrows to archived (true) or active (false) products.',
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(Product).createQueryBuilder('p')
        .where('p.account_id = :a AND p.livemode = :l', { a: caller.accountId, l: caller.livemode });
      if (query.archived === true) qb.andWhere('p.archived_at IS NOT NULL');
      if (query.archived === false) qb.andWhere('p.archived_at IS NULL');
      if (query.q) qb.andWhere('(p.name ILIKE :q OR p.description ILIKE :q)', { q: likeContains(query.q) });
      return paginate(qb, 'p', query, productView);
    },
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
    handler: async ({ caller, params }) => {
      const p = await db().getRepository(Product).findOneBy({ id: params.id, account_id: caller.accountId, livemode: caller.livemode });
      if (!p) throw notFound(`No such product: ${params.id}.`, 'id');
      return productView(p);
    },
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
