/** Id minting with the process CSPRNG (domain/ids.ts holds the pure rules; spec 2 id prefixes). */
import crypto from 'node:crypto';
import { mintId, mintShortCode } from '../domain/ids';

/** New opaque id `<prefix><24 base62>` e.g. newId('pl_'). */
export function newId(prefix: string): string {
  return mintId(prefix, crypto.randomBytes(96));
}

/** New 7-character payment-link short code (spec 2.3). */
export function newShortCode(): string {
  return mintShortCode(crypto.randomBytes(64));
}
