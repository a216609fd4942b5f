/**
 * Address book (spec 2.11 "Address book entry", 4.10): GET/POST /address_book, GET/PATCH/DELETE
 * /address_book/{id}, POST /address_book/{id}/recheck and /beneficiary. Dashboard session only
 * (an API key answers 403 permission_error `role_denied`, spec 5 "address_book.*: dashboard
 * session only"); reads any member role, writes owner or admin (recheck also developer).
 * Sessions are live, so test mode never reaches these routes. Foreign or deleted ids are 404.
 * Thin routes over activities/address-book.ts.
 */
import type Router from '@koa/router';
import { createEntry, deleteEntry, recheckEntry, setBeneficiary, updateEntry } from '../../activities/address-book/commands';
import { entryListQuery, getEntry } from '../../activities/address-book/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import { beneficiaryBody, createEntryBody, listEntriesQuery, updateEntryBody } from '../schemas/address-book';
import {
  addressBookEntryOut,
  addressBookEntryView,
  addressBookListOut,
  deletedAddressBookEntryView,
  deletedEntryOut,
} from '../../views/address-book';

const SESSION_ONLY = { callers: ['dashboard_session' as const], testMode: 'unavailable' as const };
const MANAGERS = ['owner' as const, 'admin' as const];

/** Registers the address-book operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'address_book.list',
    method: 'get',
    path: '/address_book',
    scope: 'address_book.read',
    ...SESSION_ONLY,
    query: listEntriesQuery,
    response: addressBookListOut,
    summary: 'List address-book entries, newest first; filter by `kind`, `chain` (id or name) or `q` (label, address, counterparty name).',
    handler: async ({ scope, query }) => paginate(entryListQuery(scope, query), 'e', query, addressBookEntryView),
  });

  mount(router, {
    id: 'address_book.create',
    method: 'post',
    path: '/address_book',
    scope: 'address_book.write',
    ...SESSION_ONLY,
    roles: MANAGERS,
    body: createEntryBody,
    successStatus: 201,
    response: addressBookEntryOut,
    summary: 'Save a crypto address (validated per chain, screened) or a bank destination (details added once through /beneficiary).',
    handler: async ({ scope, body }) => addressBookEntryView(await createEntry(scope, body)),
  });

  mount(router, {
    id: 'address_book.get',
    method: 'get',
    path: '/address_book/:id',
    scope: 'address_book.read',
    ...SESSION_ONLY,
    response: addressBookEntryOut,
    handler: async ({ scope, params }) => addressBookEntryView(await getEntry(scope, { id: params.id })),
  });

  mount(router, {
    id: 'address_book.update',
    method: 'patch',
    path: '/address_book/:id',
    scope: 'address_book.write',
    ...SESSION_ONLY,
    roles: MANAGERS,
    body: updateEntryBody,
    response: addressBookEntryOut,
    summary: 'Update the label and counterparty (travel rule) fields; chain, address and bank details never change.',
    handler: async ({ scope, params, body }) => addressBookEntryView(await updateEntry(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'address_book.delete',
    method: 'delete',
    path: '/address_book/:id',
    scope: 'address_book.write',
    ...SESSION_ONLY,
    roles: MANAGERS,
    response: deletedEntryOut,
    summary: 'Delete an entry; refused (409 address_book_entry_in_use) while an open payment link settles to it.',
    handler: async ({ scope, params }) => {
      await deleteEntry(scope, { id: params.id });
      return deletedAddressBookEntryView(params.id);
    },
  });

  mount(router, {
    id: 'address_book.recheck',
    method: 'post',
    path: '/address_book/:id/recheck',
    scope: 'address_book.write',
    ...SESSION_ONLY,
    roles: ['owner', 'admin', 'developer'],
    response: addressBookEntryOut,
    summary: 'Screen a crypto entry again now; emits address_book.entry_rechecked. A signal, never a block.',
    handler: async ({ scope, params }) => addressBookEntryView(await recheckEntry(scope, { id: params.id })),
  });

  mount(router, {
    id: 'address_book.set_beneficiary',
    method: 'post',
    path: '/address_book/:id/beneficiary',
    scope: 'address_book.write',
    ...SESSION_ONLY,
    roles: MANAGERS,
    body: beneficiaryBody,
    response: addressBookEntryOut,
    summary: 'Attach raw bank details to a bank entry, once; only the masked projection is ever read back.',
    handler: async ({ scope, params, body }) => addressBookEntryView(await setBeneficiary(scope, { id: params.id, beneficiary: body })),
  });
}
