/**
 * Secrets at rest: SHA-256 hashing of presented credentials (spec 5 rule 1) and AES-256-GCM
 * encryption under the application key for secrets we must use again (webhook signing secrets,
 * bank details), so that a database dump alone cannot sign or reveal them.
 */
import crypto from 'node:crypto';
import { mintToken } from '../domain/ids';
import { loadConfig } from './config';

/** Hex SHA-256 of a presented secret (API key, dashboard session token). */
export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Random token with `prefix` (base62 body of `length` characters). */
export function randomToken(prefix: string, length = 32): string {
  return mintToken(prefix, crypto.randomBytes(length * 3), length);
}

function key(): Buffer {
  const b64 = loadConfig().appEncryptionKey;
  if (!b64) throw new Error('APP_ENCRYPTION_KEY is not set');
  const k = Buffer.from(b64, 'base64');
  if (k.length !== 32) throw new Error('APP_ENCRYPTION_KEY must be 32 bytes, base64');
  return k;
}

/** Encrypts UTF-8 text; returns `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function encrypt(plain: string): string {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key(), iv);
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

/** Decrypts `encrypt` output; throws on tampering or a wrong key. */
export function decrypt(blob: string): string {
  const [v, iv, tag, ct] = blob.split('.');
  if (v !== 'v1') throw new Error('unknown ciphertext version');
  const d = crypto.createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64url'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
}
