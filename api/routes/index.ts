/** Mounts every authenticated area's router on /v1 (one module per area; spec part 4). */
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

export function mountAreas(r: Router<AppState>): void {
  for (const area of [account, apiKeys, clients, products, paymentLinks, payments, wallet, stream, events, webhooks, requestLogs, activity, accountSetup, waitlists, addressBook, credits, payouts, payroll, payrollFunding, walletSends, walletDeposits, walletOfframp, walletVirtualAccounts, screenings, customers, orders, subscriptions]) area.register(r);
}
