/**
 * API key records (spec 4.10 `/api_keys`): the key's one transition of domain/api-keys.ts
 * `API_KEY_TRANSITIONS` (-> `revoked`, stamping `revoked_at`), in the caller's transaction.
 */
import type { EntityManager } from 'typeorm';
import { API_KEY_TRANSITIONS } from '../../domain/api-keys';
import type { ApiKey } from '../../entities';

/** `active` -> `revoked`, stamping `revoked_at`; saves the key. A revoked key throws IllegalTransition (callers check first). */
export async function revokeApiKey(m: EntityManager, key: ApiKey): Promise<ApiKey> {
  API_KEY_TRANSITIONS.move(key, 'revoked');
  key.revoked_at = new Date();
  return m.save(key);
}
