/**
 * Id, secret-token and short-code minting (spec part 2 id prefixes, 2.3 short_code, 8).
 * Randomness is passed in as bytes (the caller uses crypto.randomBytes in activities or
 * the API, or Temporal's deterministic random in workflows); every mapping from bytes to
 * characters is unbiased (rejection sampling).
 *
 * Pure: no I/O, no crypto import. Safe to import from Temporal workflows.
 */

/**
 * Id prefix per resource (spec part 2; the prefix is contract, the suffix is never parsed),
 * plus internal ones: `usr_` user, `key_` API key, `whd_` webhook delivery, `wha_` webhook
 * attempt, `dep_` deposit, `eml_` email, `sess_` dashboard session id.
 */
export const ID_PREFIXES = Object.freeze({
  account: 'acct_',
  payment_link: 'pl_',
  client: 'cli_',
  product: 'prd_',
  payer_session_token: 'plk_',
  payment: 'pay_',
  subscription: 'sub_',
  wallet: 'wlt_',
  offramp_intent: 'ofr_',
  external_bank_account: 'ba_',
  payout: 'po_',
  payout_attempt: 'poa_',
  payroll_run: 'pr_',
  payroll_item: 'pri_',
  payroll_recipient: 'prc_',
  payroll_template: 'prt_',
  payroll_funding_attempt: 'prf_',
  payroll_item_attempt: 'pria_',
  payroll_recipient_session_token: 'prk_',
  customer: 'cus_',
  screening: 'scr_',
  order: 'ord_',
  quote: 'quo_',
  quote_offer: 'qof_',
  subscription_invoice: 'sin_',
  webhook_endpoint: 'whe_',
  event: 'evt_',
  address_book_entry: 'adr_',
  request: 'req_',
  user: 'usr_',
  api_key: 'key_',
  webhook_delivery: 'whd_',
  webhook_attempt: 'wha_',
  deposit: 'dep_',
  email: 'eml_',
  session: 'sess_',
  deposit_intent: 'dpi_',
  conversion: 'cnv_',
} as const);

/** base62 alphabet: digits, upper case, lower case. */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Characters after the prefix of a minted id (24 base62 characters, ~142.9 bits). */
export const ID_SUFFIX_LENGTH = 24;

/** Random bytes `mintId` requires (>= 48; the chance 48 bytes run out is below 1e-20). */
export const ID_RANDOM_BYTES = 48;

/** Short code length (spec 2.3, 8). */
export const SHORT_CODE_LENGTH = 7;

/** Short code alphabet: digits and lower-case letters except a, e, i, l, o, u (30 characters; spec 2.3). */
export const SHORT_CODE_ALPHABET = '0123456789bcdfghjkmnpqrstvwxyz';

/** Random bytes `mintShortCode` requires (>= 32; 7 draws at 240/256 acceptance practically never run out). */
export const SHORT_CODE_RANDOM_BYTES = 32;

const PREFIX_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_$/;

/**
 * Draw `length` characters from `alphabet` using bytes of `random` with rejection sampling:
 * a byte is used only when it is below the largest multiple of the alphabet size <= 256,
 * so every character is equally likely. Throws RangeError when the bytes run out.
 */
export function drawUnbiased(random: Uint8Array, alphabet: string, length: number): string {
  const n = alphabet.length;
  if (n < 2 || n > 256) throw new RangeError('alphabet size must be 2..256');
  if (!Number.isInteger(length) || length < 0) throw new RangeError('length must be a non-negative integer');
  const limit = 256 - (256 % n);
  let out = '';
  for (let i = 0; i < random.length && out.length < length; i++) {
    const b = random[i];
    if (b < limit) out += alphabet[b % n];
  }
  if (out.length < length) throw new RangeError('not enough random bytes for an unbiased draw; pass more bytes');
  return out;
}

function assertPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new RangeError(`invalid prefix ${JSON.stringify(prefix)}: lower-case segments ending in "_"`);
  }
}

function assertBytes(random: Uint8Array, min: number, what: string): void {
  if (!(random instanceof Uint8Array)) throw new TypeError(`${what}: random must be a Uint8Array`);
  if (random.length < min) throw new RangeError(`${what}: pass at least ${min} random bytes, got ${random.length}`);
}

/**
 * Mint an id: `prefix` + 24 base62 characters drawn without bias from `random`
 * (e.g. `mintId('pl_', randomBytes(48))`). `random` must hold >= ID_RANDOM_BYTES (48) bytes.
 * Throws RangeError on a malformed prefix, too few bytes, or (practically never) exhausted bytes.
 */
export function mintId(prefix: string, random: Uint8Array): string {
  assertPrefix(prefix);
  assertBytes(random, ID_RANDOM_BYTES, 'mintId');
  return prefix + drawUnbiased(random, BASE62_ALPHABET, ID_SUFFIX_LENGTH);
}

/** Random bytes `mintToken` requires for a token of `length` characters (2 per character, at least 32). */
export function tokenRandomBytes(length: number): number {
  return Math.max(32, 2 * length);
}

/**
 * Mint a secret token: `prefix` + `length` (default 32, ~190 bits) base62 characters, e.g.
 * `sk_live_...`, `plk_...`, `dsess_...`, `whsec_...`. `random` must hold at least
 * `tokenRandomBytes(length)` bytes. Throws RangeError on a malformed prefix, a length outside
 * 16..256, too few bytes, or exhausted bytes.
 */
export function mintToken(prefix: string, random: Uint8Array, length = 32): string {
  assertPrefix(prefix);
  if (!Number.isInteger(length) || length < 16 || length > 256) throw new RangeError('token length must be 16..256');
  assertBytes(random, tokenRandomBytes(length), 'mintToken');
  return prefix + drawUnbiased(random, BASE62_ALPHABET, length);
}

/**
 * Mint a 7-character short code from SHORT_CODE_ALPHABET (spec 2.3; ~34.4 bits, so the
 * caller retries on a uniqueness collision). `random` must hold >= SHORT_CODE_RANDOM_BYTES (32).
 * Throws RangeError on too few or exhausted bytes.
 */
export function mintShortCode(random: Uint8Array): string {
  assertBytes(random, SHORT_CODE_RANDOM_BYTES, 'mintShortCode');
  return drawUnbiased(random, SHORT_CODE_ALPHABET, SHORT_CODE_LENGTH);
}

const SHORT_CODE_PATTERN = new RegExp(`^[${SHORT_CODE_ALPHABET}]{${SHORT_CODE_LENGTH}}$`);

/** True when `s` is exactly 7 characters of SHORT_CODE_ALPHABET (case-sensitive). */
export function isShortCode(value: unknown): value is string {
  return typeof value === 'string' && SHORT_CODE_PATTERN.test(value);
}

/** Lower-case and trim a typed short code; the code when valid afterwards, else null. */
export function normalizeShortCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return isShortCode(v) ? v : null;
}

/**
 * True when `value` is a string of `prefix` followed by 1..128 base62 characters. A shape
 * check only (to answer 404 early), never a parse of the suffix.
 */
export function hasIdShape(value: unknown, prefix: string): value is string {
  if (typeof value !== 'string' || !value.startsWith(prefix)) return false;
  const rest = value.slice(prefix.length);
  return rest.length >= 1 && rest.length <= 128 && /^[0-9A-Za-z]+$/.test(rest);
}
