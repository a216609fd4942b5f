/**
 * Payroll recipient session routes (spec 4.4, 5 rule 5): public capability token
 * `prk_...` (handed out by `reissue_link` only), no key, dispatched before authentication like the
 * payer sessions (api/app.ts), no Idempotency-Key (a token accepts one submission: a repeat is
 * `409 destination_already_submitted`). An unknown, replaced or test-mode token is 404. The session
 * shows this recipient's payment only, destinations masked.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import { recipientSession, submitDestination } from '../../activities/payroll/destinations';
import type { AppState } from '../context';
import { mountPublic } from '../operation';
import { submitDestinationBody } from '../schemas/payroll-destinations';
import { recipientSessionResponse, recipientSessionView } from '../../views/payroll-destination';

const requestRef = (ctx: Koa.ParameterizedContext<AppState>) => ({ id: ctx.state.requestId, idempotency_key: null });

/** Router for `/v1/payroll_recipient_sessions/...` (mounted before authentication; operations declared with `mountPublic`). */
export function payrollRecipientRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/v1' });

  mountPublic(r, {
    id: 'payroll_recipient_sessions.get',
    method: 'get',
    path: '/payroll_recipient_sessions/:token',
    summary:
      'What the recipient will be paid: amount, run, payer, pay period, memo, item status, masked destination, pending adoption, can_submit.',
    response: recipientSessionResponse,
    handler: async ({ params }) => recipientSessionView(await recipientSession({ token: params.token })),
  });

  mountPublic(r, {
    id: 'payroll_recipient_sessions.destination',
    method: 'post',
    path: '/payroll_recipient_sessions/:token/destination',
    summary:
      'Submit the destination to be paid to (bank details of a rail of the run currency, or a USDC wallet), once per link; the business then adopts it.',
    body: submitDestinationBody,
    successStatus: 201,
    errors: [409],
    response: recipientSessionResponse,
    handler: async ({ params, body, ctx }) =>
      recipientSessionView(await submitDestination({ token: params.token, destination: body, request: requestRef(ctx) })),
  });

  return r;
}
