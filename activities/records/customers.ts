/**
 * Customer records (spec 2.9, 6 `customer.*`): the locked read and applying the KYC provider's
 * record to a customer, the one way its `verification_state` moves (through domain/customers.ts
 * `verificationTransitions`) together with the fields and events that move with it, in the
 * caller's transaction.
 */
import type { EntityManager } from 'typeorm';
import { verificationTransitions, type VerificationState } from '../../domain/customers';
import { Customer } from '../../entities';
import { emitEvent } from '../../lib/outbox';
import type { KycRecord } from '../../providers/kyc';
import { customerView } from '../../views/customer';

/** Locks (`FOR UPDATE`) customer `id`; throws EntityNotFound when absent. */
export async function lockCustomer(manager: EntityManager, id: string): Promise<Customer> {
  return manager.findOneOrFail(Customer, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

/**
 * Applies the provider's `report` to `customer`: a new verification state through the table
 * (`customer.verification_state_changed`, plus `customer.rejected` when rejected; `verified_at`
 * when approved), changed requirements (`customer.requirements_updated`), endorsements and the
 * rejection outcome. Saves it and writes its events in that order. A state the table does not
 * allow from the current one throws IllegalTransition; an unknown state is ignored.
 */
export async function applyCustomerVerificationReport(manager: EntityManager, customer: Customer, report: KycRecord): Promise<Customer> {
  const events: string[] = [];
  const next = report.state as VerificationState;
  if (next !== customer.verification_state && verificationTransitions.isStatus(next)) {
    customer.verification_state = verificationTransitions.assert(customer.verification_state, next);
    events.push('customer.verification_state_changed');
    if (next === 'rejected') events.push('customer.rejected');
    if (next === 'approved') customer.verified_at = new Date();
  }
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  if (!same(customer.requirements_due, report.requirements_due)) {
    customer.requirements_due = [...report.requirements_due];
    events.push('customer.requirements_updated');
  }
  customer.endorsements = [...report.endorsements];
  customer.rejection_outcome = customer.verification_state === 'rejected' ? report.rejection_outcome : null;
  const saved = await manager.save(customer);
  for (const type of events) {
    await emitEvent(manager, {
      accountId: customer.account_id,
      livemode: customer.livemode,
      type,
      objectType: 'customer',
      objectId: customer.id,
      object: customerView(saved),
    });
  }
  return saved;
}
