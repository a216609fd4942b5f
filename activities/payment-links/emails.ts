/** Email texts of a payment link (spec 4.1 `send_invoice`, reminders). */
import { formatMajor } from '../../domain/money';
import type { PaymentLink } from '../../entities';

/**
 * Plain-text body of the invoice (`kind` invoice) or reminder email of `link`: lead line from the
 * merchant's display name, title and references, amount in major units, note, due date and the
 * payer `url`.
 */
export function linkEmailBody(link: PaymentLink, url: string, merchant: string, kind: 'invoice' | 'reminder'): string {
  const amount = `${formatMajor({ amount: String(link.amount_minor), currency: link.currency, decimals: link.decimals })} ${link.currency}`;
  const lead = kind === 'invoice' ? `${merchant} sent you an invoice.` : `A friendly reminder: ${merchant} is waiting for your payment.`;
  return [
    lead,
    '',
    `${link.title} (${link.reference_id}${link.invoice_number ? `, invoice ${link.invoice_number}` : ''})`,
    `Amount: ${amount}`,
    link.memo ? `Note: ${link.memo}` : null,
    link.expires_at ? `Pay before ${link.expires_at.toISOString()}` : null,
    '',
    `Pay here: ${url}`,
  ]
    .filter((l) => l !== null)
    .join('\n');
}
