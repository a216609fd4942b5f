/** Workflow entry points bundled for the worker: one file per long-lived object. */
export * from './payment';
export * from './xchain-payment';
export * from './payment-link';
export * from './webhook-endpoint';
export * from './payout';
export * from './payroll-run';
export * from './payroll-item';
export * from './send-intent';
export * from './virtual-account';
export * from './deposit-intent';
export * from './conversion';
export * from './offramp-intent';
export * from './customer';
export * from './order';
export * from './subscription';
