/**
 * API key statuses (spec 2.2 "API key", 4.10, 5): a key is `active` until it is revoked (by
 * `POST /api_keys/{id}/revoke`, or by a roll, which revokes the old key at once); `revoked` is
 * final. Expiry is `expires_at`, not a status. Pure: no I/O.
 */
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

/** API key statuses (spec 2.2). */
export const API_KEY_STATUSES = Object.freeze(['active', 'revoked'] as const);
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

const NEXT: TransitionMap<ApiKeyStatus> = {
  active: ['revoked'],
  revoked: [],
};

/** The API key table; an illegal transition is `409 conflict` code `api_key_state_changed`. */
export const apiKeyTransitions: TransitionTable<ApiKeyStatus> = transitionTable('api_key', NEXT);
