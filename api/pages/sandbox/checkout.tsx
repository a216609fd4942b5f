/**
 * The sandbox checkout provider's hosted page of a credit checkout (spec 4.10):
 * `/sandbox/checkout/<cs_sbx_ id>`, the `url` `providers/checkout.ts` hands out. Shows the amount,
 * what it is for and the session's state; while the session is open its SANDBOX buttons pay, fail
 * or abandon it exactly as `POST /sim/providers/checkout/{checkout_id}/complete|fail|expire` does
 * (api/sim-actions.ts `actOnCheckout`: the provider moves the session and notifies the product,
 * which grants the credits once). Past `expires_at` the session can no longer be paid. A closed
 * session has no buttons; an unknown session is the 404 page.
 */
import type Router from '@koa/router';
import { invalidRequest, notFound } from '../../../domain/errors';
import { currencyDecimals } from '../../../domain/money';
import { checkoutProvider, type SandboxCheckoutSession } from '../../../providers/checkout';
import type { AppState } from '../../context';
import { actOnCheckout } from '../../sim-actions';
import { pageContext, sendPage, type PageContext } from '../render';
import { postedAction, runAction, SandboxActions, SandboxPage, StateNotice, type Ctx, type SandboxButton } from './parts';

const ACTIONS: Readonly<Record<string, 'complete' | 'fail' | 'expire'>> = { pay: 'complete', fail: 'fail', abandon: 'expire' };

async function loadSession(ctx: Ctx): Promise<SandboxCheckoutSession> {
  const s = await checkoutProvider().session(ctx.params.id);
  if (!s) throw notFound('No such checkout session.');
  return s;
}

function CheckoutPage(p: { pc: PageContext; s: SandboxCheckoutSession; refused?: string }) {
  const { pc, s } = p;
  const c = pc.locale.copy.sandbox;
  const money = (minor: bigint) =>
    pc.locale.money({ amount: minor.toString(), currency: s.currency, decimals: currencyDecimals(s.currency) });
  const timedOut = s.status === 'open' && s.expiresAt.getTime() <= Date.now();
  const buttons: SandboxButton[] =
    s.status !== 'open'
      ? []
      : [
          ...(timedOut ? [] : [{ value: 'pay', label: c.checkout.pay }]),
          { value: 'fail', label: c.checkout.fail },
          { value: 'abandon', label: c.checkout.abandon },
        ];
  const state = c.checkout.states[s.status] ?? s.status;
  return (
    <SandboxPage pc={pc} title={c.checkout.title} refused={p.refused}>
      <p class="amount">{money(s.amountMinor)}</p>
      <dl class="kv">
        <div>
          <dt>{c.checkout.description}</dt>
          <dd>{s.description}</dd>
        </div>
        <div>
          <dt>{c.checkout.state}</dt>
          <dd class="status">{state}</dd>
        </div>
        {s.paidAmountMinor !== null ? (
          <div>
            <dt>{c.checkout.paidAmount}</dt>
            <dd>{money(s.paidAmountMinor)}</dd>
          </div>
        ) : null}
        {s.status === 'open' ? (
          <div>
            <dt>{c.expiresAt}</dt>
            <dd>{pc.locale.dateTime(s.expiresAt.toISOString())}</dd>
          </div>
        ) : null}
      </dl>
      <StateNotice tone={s.status === 'paid' ? 'ok' : s.status === 'open' ? 'info' : 'bad'} text={c.checkout.done(state)} />
      {timedOut ? <p class="notice warn">{c.checkout.timedOut}</p> : null}
      <SandboxActions pc={pc} action={`/sandbox/checkout/${s.id}`} buttons={buttons} />
    </SandboxPage>
  );
}

/** Mounts `/sandbox/checkout/:id` (GET the hosted page, POST `action` pay | fail | abandon). */
export function mountCheckoutPages(router: Router<AppState>): void {
  router.get('/sandbox/checkout/:id', async (ctx) => {
    sendPage(ctx, <CheckoutPage pc={pageContext(ctx)} s={await loadSession(ctx)} />);
  });

  router.post('/sandbox/checkout/:id', async (ctx) => {
    const s = await loadSession(ctx);
    const action = ACTIONS[postedAction(ctx)];
    if (!action) throw invalidRequest('parameter_invalid', 'Unknown action.', 'action');
    await runAction(
      ctx,
      `/sandbox/checkout/${s.id}`,
      async () => {
        await actOnCheckout(s.clientReference, action);
      },
      async (refused, status) => {
        sendPage(ctx, <CheckoutPage pc={pageContext(ctx)} s={await loadSession(ctx)} refused={refused} />, status);
      },
    );
  });
}
