/** joi schemas of credits (spec 2.11 "Credits", 4.10, 8): requests and response shapes. */
import Joi from './joi';
import { CREDIT_EVENT_TYPES, CREDIT_PACKS } from '../../domain/credits';
import { listQuery } from './common';

/** `POST /credit_checkouts`: `pack` is 5, 10 or 20 (spec 8); anything else 400 param `pack`. */
export const createCheckoutBody = Joi.object({
  pack: Joi.number()
    .integer()
    .strict()
    .valid(...CREDIT_PACKS)
    .required(),
});

/** `GET /credit_events`: `type` narrows to one ledger row type (closed enum). */
export const listCreditEventsQuery = Joi.object({
  ...listQuery,
  type: Joi.string().valid(...CREDIT_EVENT_TYPES),
});
