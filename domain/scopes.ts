/** The scope vocabulary of spec 5: `<resource>.<read|write>`. */
export const ALL_SCOPES = [
  'account.read',
  'account.write',
  'capabilities.read',
  'customers.read',
  'customers.write',
  'orders.read',
  'orders.write',
  'payment_links.read',
  'payment_links.write',
  'payouts.read',
  'payouts.write',
  'payroll.read',
  'payroll.write',
  'wallet.read',
  'wallet.write',
  'events.read',
  'activity.read',
  'developers.read',
  'developers.write',
  'screenings.read',
  'screenings.write',
  'address_book.read',
  'address_book.write',
  'credits.read',
  'credits.write',
] as const;

/** Deprecated aliases still accepted on requests until the next version date (spec 9 rule 6). */
export const SCOPE_ALIASES = ['screening.read', 'screening.write'] as const;
