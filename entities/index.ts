/** Every TypeORM entity and migration, for the DataSource. */
import { Account, AccountFlag, ApiKey, DashboardSession, FeatureSwitch, IdempotencyRecord, Membership, User } from './account';
import { AddressBookEntry, Client, Product, Wallet } from './catalog';
import { Deposit, Payment, PaymentLink, SandboxChainTransfer } from './payments';
import { EventRow, SandboxEmail, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './developers';
import { PlatformCore1763700000000 } from './migrations/1763700000000-PlatformCore';
import { AuthChangeNotify1763700100000 } from './migrations/1763700100000-AuthChangeNotify';
import { WebhookHeldDeliveries1763800100000 } from './migrations/1763800100000-WebhookHeldDeliveries';

export * from './account';
export * from './catalog';
export * from './payments';
export * from './developers';

export const ENTITIES = [
  User, Account, Membership, DashboardSession, ApiKey, FeatureSwitch, AccountFlag, IdempotencyRecord,
  Client, Product, AddressBookEntry, Wallet, PaymentLink, Payment, Deposit, SandboxChainTransfer,
  EventRow, WebhookEndpoint, WebhookDelivery, WebhookAttempt, SandboxEmail,
];

export const MIGRATIONS = [PlatformCore1763700000000, AuthChangeNotify1763700100000, WebhookHeldDeliveries1763800100000];
