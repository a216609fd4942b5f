/**
 * The sandbox KYC provider's hosted verification link (spec 4.7):
 * `/sandbox/kyc/<provider_customer_id>/<kind>?t=<token>`, the URL `providers/kyc.ts` `createLink`
 * hands out. Shows the step and the provider's current state; its SANDBOX buttons are the
 * provider's decisions, played exactly as `POST /sim/kyc/decisions` plays them (api/sim-actions.ts
 * `decideKyc`: the provider records, the customer's workflow applies):
 * - on the `tos` link, "accept the terms" while the provider waits for the person (`not_started`,
 *   `pending`): the person accepted, so the provider starts its review (`under_review`);
 * - approve (`approved`, nothing due), request more information (`action_required`, this link's
 *   kind due, `proof_of_address` on the terms link), decline (`rejected`, `resubmission_allowed`).
 * Unknown customer, a kind not of the customer's type, or a link without its token: the 404 page.
 */
import type Router from '@koa/router';
import { VERIFICATION_LINK_KINDS, type CustomerType } from '../../../domain/customers';
import { conflict, invalidRequest, notFound } from '../../../domain/errors';
import { kycProvider, type KycRecord } from '../../../providers/kyc';
import type { AppState } from '../../context';
import { decideKyc, type KycDecision } from '../../sim-actions';
import { pageContext, sendPage, type PageContext } from '../render';
import { postedAction, runAction, SandboxActions, SandboxPage, StateNotice, type Ctx, type SandboxButton } from './parts';

const LINK_TOKEN = /^[0-9a-f]{32}$/;
const WAITING_FOR_TERMS = new Set(['not_started', 'pending']);

type Provided = KycRecord & { client_reference: string; customer_type: string };

/** The provider's record behind the link in `ctx` (404 when the link is not one the provider issues). */
async function loadLink(ctx: Ctx): Promise<{ rec: Provided; kind: string; url: string }> {
  const t = typeof ctx.query.t === 'string' ? ctx.query.t : '';
  const { pcid, kind } = ctx.params;
  const rec = LINK_TOKEN.test(t) ? await kycProvider().find(pcid) : null;
  if (!rec || !(VERIFICATION_LINK_KINDS[rec.customer_type as CustomerType] ?? []).includes(kind))
    throw notFound('No such verification link.');
  return { rec, kind, url: `/sandbox/kyc/${encodeURIComponent(pcid)}/${encodeURIComponent(kind)}?t=${t}` };
}

/** The decision each button plays (`null`: the button does not apply to the record now). */
function decisionOf(action: string, rec: Provided, kind: string): KycDecision | null {
  const customer_id = rec.client_reference;
  switch (action) {
    case 'accept_terms':
      return kind === 'tos' && WAITING_FOR_TERMS.has(rec.state) ? { customer_id, state: 'under_review' } : null;
    case 'approve':
      return rec.state !== 'approved' ? { customer_id, state: 'approved', requirements_due: [] } : null;
    case 'request_more':
      return rec.state !== 'action_required'
        ? { customer_id, state: 'action_required', requirements_due: [kind === 'tos' ? 'proof_of_address' : kind] }
        : null;
    case 'decline':
      return rec.state !== 'rejected' ? { customer_id, state: 'rejected', rejection_outcome: 'resubmission_allowed' } : null;
    default:
      throw invalidRequest('parameter_invalid', `Unknown action ${action}.`, 'action');
  }
}

function KycLinkPage(p: { pc: PageContext; rec: Provided; kind: string; url: string; refused?: string }) {
  const c = p.pc.locale.copy.sandbox.kyc;
  const state = c.states[p.rec.state] ?? p.rec.state;
  const tone = p.rec.state === 'approved' ? 'ok' : p.rec.state === 'rejected' ? 'bad' : 'info';
  const button = (value: string, label: string): SandboxButton[] => (decisionOf(value, p.rec, p.kind) ? [{ value, label }] : []);
  return (
    <SandboxPage pc={p.pc} title={c.title} refused={p.refused}>
      <p>{c.intro}</p>
      <dl class="kv">
        <div>
          <dt>{c.step}</dt>
          <dd>{c.kinds[p.kind] ?? p.kind}</dd>
        </div>
        <div>
          <dt>{c.state}</dt>
          <dd class="status">{state}</dd>
        </div>
        {p.rec.requirements_due.length > 0 ? (
          <div>
            <dt>{c.requirements}</dt>
            <dd>{p.rec.requirements_due.map((r) => c.kinds[r] ?? r).join(', ')}</dd>
          </div>
        ) : null}
      </dl>
      <StateNotice tone={tone} text={c.done(state)} />
      {p.kind === 'tos' && WAITING_FOR_TERMS.has(p.rec.state) ? (
        <SandboxActions pc={p.pc} action={p.url} title={c.tos} hint={c.tosBody} buttons={button('accept_terms', c.acceptTerms)} />
      ) : null}
      {p.kind === 'tos' && !WAITING_FOR_TERMS.has(p.rec.state) ? <p class="notice ok">{c.tosAccepted}</p> : null}
      <SandboxActions
        pc={p.pc}
        action={p.url}
        title={c.decisionTitle}
        buttons={[...button('approve', c.approve), ...button('request_more', c.requestMore), ...button('decline', c.decline)]}
      />
    </SandboxPage>
  );
}

/** Mounts `/sandbox/kyc/:pcid/:kind` (GET the link's page, POST a SANDBOX decision). */
export function mountKycPages(router: Router<AppState>): void {
  router.get('/sandbox/kyc/:pcid/:kind', async (ctx) => {
    const { rec, kind, url } = await loadLink(ctx);
    sendPage(ctx, <KycLinkPage pc={pageContext(ctx)} rec={rec} kind={kind} url={url} />);
  });

  router.post('/sandbox/kyc/:pcid/:kind', async (ctx) => {
    const { rec, kind, url } = await loadLink(ctx);
    const decision = decisionOf(postedAction(ctx), rec, kind);
    await runAction(
      ctx,
      url,
      async () => {
        if (!decision) throw conflict('sim_action_refused', "The decision does not apply to the provider's state.");
        await decideKyc(decision);
      },
      async (refused, status) => {
        const again = await loadLink(ctx);
        sendPage(ctx, <KycLinkPage pc={pageContext(ctx)} rec={again.rec} kind={kind} url={url} refused={refused} />, status);
      },
    );
  });
}
