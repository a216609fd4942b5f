/**
 * Clients (spec 2.3 Client, 4.1): GET/POST /clients, GET/PATCH /clients/{id}, POST
 * /clients/{id}/archive. Scopes `payment_links.read` / `.write`; not available in test mode.
 * Foreign ids are 404; archived clients stay readable. Thin routes over activities/catalog/.
 */
import type Router from '@koa/router';
import { archiveClient, createClient, updateClient } from '../../activities/catalog/commands';
import { getClient, listClients } from '../../activities/catalog/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import { createClientBody, listClientsQuery, updateClientBody } from '../schemas/payment-links';
import { clientResponse, clientView } from '../../views/client';
import { listEnvelope } from '../../views/schema';

/** Registers the client operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'clients.list',
    method: 'get',
    path: '/clients',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: listEnvelope(clientResponse),
    query: listClientsQuery,
    summary: 'List clients, newest first; `archived` narrows to archived (true) or active (false) clients.',
    handler: async ({ scope, query }) => paginate(listClients(scope, query), 'c', query, clientView),
  });

  mount(router, {
    id: 'clients.create',
    method: 'post',
    path: '/clients',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: clientResponse,
    body: createClientBody,
    successStatus: 201,
    handler: async ({ scope, body }) => clientView(await createClient(scope, body)),
  });

  mount(router, {
    id: 'clients.get',
    method: 'get',
    path: '/clients/:id',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: clientResponse,
    handler: async ({ scope, params }) => clientView(await getClient(scope, { id: params.id })),
  });

  mount(router, {
    id: 'clients.update',
    method: 'patch',
    path: '/clients/:id',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: clientResponse,
    body: updateClientBody,
    handler: async ({ scope, params, body }) => clientView(await updateClient(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'clients.archive',
    method: 'post',
    path: '/clients/:id/archive',
    scope: 'payment_links.write',
    testMode: 'unavailable',
    response: clientResponse,
    handler: async ({ scope, params }) => clientView(await archiveClient(scope, { id: params.id })),
  });
}
