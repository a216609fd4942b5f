/** Every workflow contract (one per workflow type of workflows/index.ts): for checks and tooling that walk them all. */
import { conversionContract } from './conversion';
import { customerContract } from './customer';
import { depositIntentContract } from './deposit-intent';
import { offrampIntentContract } from './offramp-intent';
import { orderContract } from './order';
import { paymentContract } from './payment';
import { paymentLinkContract } from './payment-link';
import { payoutContract } from './payout';
import { payrollItemContract } from './payroll-item';
import { payrollRunContract } from './payroll-run';
import { sendIntentContract } from './send-intent';
import { subscriptionContract } from './subscription';
import { virtualAccountContract } from './virtual-account';
import { webhookEndpointContract } from './webhook-endpoint';
import { xchainPaymentContract } from './xchain-payment';

export const CONTRACTS = [
  paymentContract,
  xchainPaymentContract,
  paymentLinkContract,
  webhookEndpointContract,
  payoutContract,
  payrollRunContract,
  payrollItemContract,
  sendIntentContract,
  virtualAccountContract,
  depositIntentContract,
  conversionContract,
  offrampIntentContract,
  customerContract,
  orderContract,
  subscriptionContract,
] as const;
