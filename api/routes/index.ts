/**
 * Every router of the API: the authenticated areas on /v1 (`mountAreas`) and the public routers
 * (`publicRouters`), one module per area (spec part 4).
 */
import type Router from '@koa/router';
import type { AppState } from '../context';
import * as account from './account';
import * as apiKeys from './api-keys';
import * as clients from './clients';
import * as products from './products';
import * as paymentLinks from './payment-links';
import * as payments from './payments';
import * as wallet from './wallet';
import * as events from './events';
import * as stream from './stream';
import * as requestLogs from './request-logs';
import * as activity from './activity';
import * as accountSetup from './account-setup';
import * as waitlists from './waitlists';
import * as webhooks from './webhooks';
import * as addressBook from './address-book';
import * as credits from './credits';
import * as payouts from './payouts';
import * as payroll from './payroll';
import * as payrollFunding from './payroll-funding';
import * as walletSends from './wallet-sends';
import * as walletVirtualAccounts from './wallet-virtual-accounts';
import * as walletDeposits from './wallet-deposits';
import * as walletOfframp from './wallet-offramp';
import * as screenings from './screenings';
import * as customers from './customers';
import * as orders from './orders';
import * as subscriptions from './subscriptions';

import { payerRouter } from './payer-sessions';
import { payrollRecipientRouter } from './payroll-recipient-sessions';
import { eligibilityRouter } from './eligibility';

/**
 * The public routers (spec 5 rule 5), each registering its operations: payer sessions (`plk_`),
 * payroll recipient sessions (`prk_`) and the credential-free eligibility read. The server and the
 * offline document (api/openapi-cli.ts) both call this, so no served operation escapes the document.
 */
export function publicRouters(): Router<AppState>[] {
  return [payerRouter(), payrollRecipientRouter(), eligibilityRouter()];
}

/** Mounts every authenticated area's router on `r` (/v1; one module per area; spec part 4). */
export function mountAreas(router: Router<AppState>): void {
  for (const area of [
    account,
    apiKeys,
    clients,
    products,
    paymentLinks,
    payments,
    wallet,
    stream,
    events,
    webhooks,
    requestLogs,
    activity,
    accountSetup,
    waitlists,
    addressBook,
    credits,
    payouts,
    payroll,
    payrollFunding,
    walletSends,
    walletDeposits,
    walletOfframp,
    walletVirtualAccounts,
    screenings,
    customers,
    orders,
    subscriptions,
  ])
    area.register(router);
}
