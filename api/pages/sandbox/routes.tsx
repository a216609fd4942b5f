/**
 * The sandbox's hosted provider pages: `/sandbox/...` on the payer host, mounted
 * only with the simulator on, standing in for the pages a real provider would host. Every page is
 * marked SANDBOX (the Layout banner, the heading's tag, "SANDBOX: ..." buttons), shows the object's
 * current state, and its buttons do what the matching `/sim` route does (api/sim-actions.ts):
 * - `/sandbox/kyc/<provider_customer_id>/<kind>?t=<token>`: a KYC verification link (kyc.tsx);
 * - `/sandbox/checkout/<cs_sbx_ id>`: a credit checkout's hosted payment page (checkout.tsx);
 * - `/sandbox/orders/<prv_ id>`: an order's hosted card checkout (orders.tsx).
 * After an action: 303 back to the page. Unknown ids: the pages' 404.
 */
import type Router from '@koa/router';
import type { AppState } from '../../context';
import { mountCheckoutPages } from './checkout';
import { mountKycPages } from './kyc';
import { mountOrderPages } from './orders';

/** Mounts the hosted pages of the sandbox providers (verification links, credit checkouts, order checkouts). */
export function mountSandboxPages(router: Router<AppState>): void {
  mountKycPages(router);
  mountCheckoutPages(router);
  mountOrderPages(router);
}
