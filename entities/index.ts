/** Every TypeORM entity and migration, for the DataSource. */
import { Account, AccountFlag, ApiKey, DashboardSession, FeatureSwitch, IdempotencyRecord, Membership, User } from './account';
import { AddressBookEntry, Client, Product, Wallet } from './catalog';
import { BankCredit, Deposit, Payment, PaymentLink, SandboxChainTransfer } from './payments';
import { EventRow, RequestLog, SandboxEmail, WaitlistEntry, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './developers';
import { CreditBalanceRow, CreditCheckout, CreditEventRow } from './credits';
import { Payout, PayoutAttempt, PayoutDeposit, SandboxBridgeTransfer, SandboxRailPayment, WalletSend } from './payouts';
import {
  PayrollFunding,
  PayrollFundingAttempt,
  PayrollFundsReturn,
  PayrollItemAttempt,
  PayrollRecipient,
  PayrollRun,
  PayrollRunItem,
  PayrollTemplate,
} from './payroll';
import { PlatformCore1763700000000 } from './migrations/1763700000000-PlatformCore';
import { AuthChangeNotify1763700100000 } from './migrations/1763700100000-AuthChangeNotify';
import { RequestLogsWaitlists1763800200000 } from './migrations/1763800200000-RequestLogsWaitlists';
import { AddressBookCredits1763800300000 } from './migrations/1763800300000-AddressBookCredits';
import { Payouts1763800500000 } from './migrations/1763800500000-Payouts';
import { WebhookHeldDeliveries1763800100000 } from './migrations/1763800100000-WebhookHeldDeliveries';
import { PayoutsHardening1763800600000 } from './migrations/1763800600000-PayoutsHardening';
import { PayoutBeneficiaryMasked1763800700000 } from './migrations/1763800700000-PayoutBeneficiaryMasked';
import { RequestLogsBrin1763800800000 } from './migrations/1763800800000-RequestLogsBrin';
import { UpdatedAtFromCreatedAt1763800900000 } from './migrations/1763800900000-UpdatedAtFromCreatedAt';
import { BankRails1764000000000 } from './migrations/1764000000000-BankRails';
import { CrossNetworkRails1764100000000 } from './migrations/1764100000000-CrossNetworkRails';
import { Payroll1764200000000 } from './migrations/1764200000000-Payroll';
import { PayrollRecipientSessions1764250000000 } from './migrations/1764250000000-PayrollRecipientSessions';
import { WalletVirtualAccounts1764330000000 } from './migrations/1764330000000-WalletVirtualAccounts';
import { WalletVirtualAccount, WalletVirtualAccountCredit } from './wallet-virtual-accounts';
import { WalletSendIntents1764300000000 } from './migrations/1764300000000-WalletSendIntents';
import { WalletSendIntent } from './wallet-sends';
import { WalletConversion, WalletDepositIntent } from './wallet-deposits';
import { WalletDeposits1764310000000 } from './migrations/1764310000000-WalletDeposits';
import { WalletOfframp1764320000000 } from './migrations/1764320000000-WalletOfframp';
import { TermsAcceptances1764420000000 } from './migrations/1764420000000-TermsAcceptances';
import { Screenings1764430000000 } from './migrations/1764430000000-Screenings';
import { Customers1764440000000 } from './migrations/1764440000000-Customers';
import { Subscriptions1764450000000 } from './migrations/1764450000000-Subscriptions';
import { QuotesOrders1764460000000 } from './migrations/1764460000000-QuotesOrders';
import { WebhookEndpointDisabledAt1764470000000 } from './migrations/1764470000000-WebhookEndpointDisabledAt';
import { WebhookEndpointDrain1764480000000 } from './migrations/1764480000000-WebhookEndpointDrain';
import { OutboxCursorIndexes1764490000000 } from './migrations/1764490000000-OutboxCursorIndexes';
import { PayrollFundReturns1764500000000 } from './migrations/1764500000000-PayrollFundReturns';
import { QuoteAmountsNumeric1764510000000 } from './migrations/1764510000000-QuoteAmountsNumeric';
import { IdempotencyResponseText1764520000000 } from './migrations/1764520000000-IdempotencyResponseText';
import { ListIndexesLinkCounts1764610000000 } from './migrations/1764610000000-ListIndexesLinkCounts';
import { EventCounts1764610100000 } from './migrations/1764610100000-EventCounts';
import { PaymentListIndexesCounts1764610200000 } from './migrations/1764610200000-PaymentListIndexesCounts';
import { PartitionedLogs1764620000000 } from './migrations/1764620000000-PartitionedLogs';
import { SwitchChangeNotify1764630000000 } from './migrations/1764630000000-SwitchChangeNotify';
import { RequestLogCounts1764640000000 } from './migrations/1764640000000-RequestLogCounts';
import { EventTraceParent1764650000000 } from './migrations/1764650000000-EventTraceParent';
import { LinearCounterTriggers1764660000000 } from './migrations/1764660000000-LinearCounterTriggers';
import { WorkflowIntents1764670000000 } from './migrations/1764670000000-WorkflowIntents';
import { WorkflowIntentQueues1764680000000 } from './migrations/1764680000000-WorkflowIntentQueues';
import { WorkflowIntentClaims1764690000000 } from './migrations/1764690000000-WorkflowIntentClaims';
import { Subscription, SubscriptionInvoice } from './subscriptions';
import { Order, Quote, QuoteOffer } from './orders';
import { Customer, CustomerVerificationLink } from './customers';
import { Screening, ScreeningReport } from './screenings';
import { WalletExternalAccount, WalletOfframpIntent } from './wallet-offramp';

export * from './account';
export * from './catalog';
export * from './payments';
export * from './developers';
export * from './credits';
export * from './payouts';
export * from './payroll';
export * from './wallet-sends';
export * from './wallet-virtual-accounts';
export * from './wallet-deposits';
export * from './wallet-offramp';
export * from './screenings';
export * from './customers';
export * from './orders';
export * from './subscriptions';

export const ENTITIES = [
  User,
  Account,
  Membership,
  DashboardSession,
  ApiKey,
  FeatureSwitch,
  AccountFlag,
  IdempotencyRecord,
  Client,
  Product,
  AddressBookEntry,
  Wallet,
  PaymentLink,
  Payment,
  Deposit,
  BankCredit,
  SandboxChainTransfer,
  EventRow,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  SandboxEmail,
  RequestLog,
  WaitlistEntry,
  CreditBalanceRow,
  CreditEventRow,
  CreditCheckout,
  Payout,
  PayoutAttempt,
  PayoutDeposit,
  WalletSend,
  SandboxBridgeTransfer,
  SandboxRailPayment,
  PayrollTemplate,
  PayrollRun,
  PayrollRecipient,
  PayrollRunItem,
  PayrollFundingAttempt,
  PayrollFunding,
  PayrollItemAttempt,
  PayrollFundsReturn,
  WalletSendIntent,
  WalletVirtualAccount,
  WalletVirtualAccountCredit,
  WalletDepositIntent,
  WalletConversion,
  WalletExternalAccount,
  WalletOfframpIntent,
  Screening,
  ScreeningReport,
  Customer,
  CustomerVerificationLink,
  Quote,
  QuoteOffer,
  Order,
  Subscription,
  SubscriptionInvoice,
];

export const MIGRATIONS = [
  PlatformCore1763700000000,
  AuthChangeNotify1763700100000,
  WebhookHeldDeliveries1763800100000,
  RequestLogsWaitlists1763800200000,
  AddressBookCredits1763800300000,
  Payouts1763800500000,
  PayoutsHardening1763800600000,
  PayoutBeneficiaryMasked1763800700000,
  RequestLogsBrin1763800800000,
  UpdatedAtFromCreatedAt1763800900000,
  BankRails1764000000000,
  CrossNetworkRails1764100000000,
  Payroll1764200000000,
  PayrollRecipientSessions1764250000000,
  WalletSendIntents1764300000000,
  WalletDeposits1764310000000,
  WalletOfframp1764320000000,
  WalletVirtualAccounts1764330000000,
  TermsAcceptances1764420000000,
  Screenings1764430000000,
  Customers1764440000000,
  Subscriptions1764450000000,
  QuotesOrders1764460000000,
  WebhookEndpointDisabledAt1764470000000,
  WebhookEndpointDrain1764480000000,
  OutboxCursorIndexes1764490000000,
  PayrollFundReturns1764500000000,
  QuoteAmountsNumeric1764510000000,
  IdempotencyResponseText1764520000000,
  ListIndexesLinkCounts1764610000000,
  EventCounts1764610100000,
  PaymentListIndexesCounts1764610200000,
  PartitionedLogs1764620000000,
  SwitchChangeNotify1764630000000,
  RequestLogCounts1764640000000,
  EventTraceParent1764650000000,
  LinearCounterTriggers1764660000000,
  WorkflowIntents1764670000000,
  WorkflowIntentQueues1764680000000,
  WorkflowIntentClaims1764690000000,
];
