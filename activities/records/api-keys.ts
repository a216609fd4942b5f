/**
 * API key records (spec 4.10 `/api_keys`): the key's one transition of domain/api-keys.ts
 * `apiKeyTransitions` (-> `revoked`, stamping `revoked_at`), in the caller's transaction.
 */
import type { EntityManager } from 'typeorm';
import { apiKeyTransitions } from '../../domain/api-keys';
import type { ApiKey } from '../../entities';

/** `active` -> `revoked`, stamping `revoked_at`; saves the key. A revoked key throws IllegalTransition (callers check first). */
export async function revokeApiKey(manager: EntityManager, key: ApiKey): Promise<ApiKey> {
  apiKeyTransitions.move(key, 'revoked');
  key.revoked_at = new Date();
  return manager.save(key);
}
