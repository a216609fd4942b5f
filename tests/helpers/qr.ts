/**
 * The payer page's QR codes read as a wallet reads them: each `svg.qr` photographed as the browser
 * draws it (a PNG of the element), decoded with jsQR, and its EIP-681 payload parsed and compared
 * with the payment's deposit instructions from the API (spec 2.1 DepositInstructions: `address`,
 * `chain`, `chain_id`, `token_address`; the amount due in the token's base units).
 *
 *   await expectQrPays(page, await currentPayment(merchant, page.url()));
 *   // one QR: ethereum:<token>@<chain_id>/transfer?address=<deposit>&uint256=<due>
 */
import { PNG } from 'pngjs';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { isAddress } from 'viem';
import { resolveChain } from '../../domain/addresses';
import { call, expectOk, type client } from './api';

/**
 * The text of every QR code matched by `selector` (default `svg.qr`), in document order: each is
 * scrolled into view, photographed and decoded. Throws naming the one that does not decode.
 */
export async function decodeQrCodes(page: Page, selector = 'svg.qr'): Promise<string[]> {
  const codes = page.locator(selector);
  const out: string[] = [];
  const n = await codes.count();
  for (let i = 0; i < n; i++) {
    const png = PNG.sync.read(await codes.nth(i).screenshot({ scale: 'device', animations: 'disabled' }));
    const found = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength), png.width, png.height);
    if (!found) throw new Error(`QR code ${i + 1} of ${n} (${selector}) on ${page.url()} does not decode (${png.width}x${png.height} px)`);
    out.push(found.data);
  }
  return out;
}

/** An ERC-20 transfer request as EIP-681 states it. */
export interface Erc20Transfer {
  /** The token contract (`target_address`). */
  tokenAddress: string;
  chainId: number;
  /** The function called: `transfer` for an ERC-20 transfer. */
  functionName: string;
  /** The `address` parameter: who receives the tokens. */
  recipient: string;
  /** The `uint256` parameter: base units of the token. */
  amount: bigint;
}

/** EIP-681's `number` (`[+-]digits[.digits][e[digits]]`) as an exact non-negative integer, else null. */
function eip681Integer(s: string): bigint | null {
  const m = /^\+?(\d*)(?:\.(\d+))?(?:[eE](\d*))?$/.exec(s);
  if (!m || (m[1] === '' && m[2] === undefined)) return null;
  const frac = m[2] ?? '';
  const exp = Number(m[3] || '0') - frac.length;
  const digits = BigInt(`${m[1]}${frac}` || '0');
  if (exp >= 0) return digits * 10n ** BigInt(exp);
  const div = 10n ** BigInt(-exp);
  return digits % div === 0n ? digits / div : null;
}

/**
 * Parses an EIP-681 request for an ERC-20 transfer:
 * `ethereum:[pay-]<token>@<chain_id>/transfer?address=<recipient>&uint256=<amount>` (parameters
 * percent-decoded, each once, in any order). The addresses must be valid (viem `isAddress`: a
 * mixed-case one carries its EIP-55 checksum, as a wallet demands). Throws on anything else.
 */
export function parseErc20TransferUri(uri: string): Erc20Transfer {
  const m = /^ethereum:(?:pay-)?(0x[0-9a-fA-F]{40})@(\d+)\/([A-Za-z_][A-Za-z0-9_]*)\?(.*)$/.exec(uri);
  if (!m) throw new Error(`not an EIP-681 function call with a chain id: ${uri}`);
  const [, tokenAddress, chain, functionName, query] = m;
  const params = new URLSearchParams(query);
  const keys = [...params.keys()];
  if (keys.length !== new Set(keys).size) throw new Error(`repeated parameter in ${uri}`);
  const recipient = params.get('address') ?? '';
  const amount = eip681Integer(params.get('uint256') ?? '');
  if (!isAddress(tokenAddress)) throw new Error(`token address ${tokenAddress} is not a valid address (EIP-55 checksum?)`);
  if (!isAddress(recipient)) throw new Error(`recipient ${recipient} is not a valid address (EIP-55 checksum?) in ${uri}`);
  if (amount === null) throw new Error(`uint256 is not a non-negative integer in ${uri}`);
  const unknown = keys.filter((k) => k !== 'address' && k !== 'uint256');
  if (unknown.length) throw new Error(`unexpected parameters ${unknown.join(', ')} in ${uri}`);
  return { tokenAddress, chainId: Number(chain), functionName, recipient, amount };
}

/** The parts of a payment (the API's Payment, as the merchant or the payer session reads it) that a QR code states. */
export interface PaymentToPay {
  status: string;
  amount_expected: { amount: string; currency: string };
  amount_received?: { amount: string } | null;
  deposit_instructions: {
    address: string;
    chain: string;
    chain_id?: number | null;
    asset?: string | null;
    token_address?: string | null;
    /** What to send (spec 2.1): the amount due; on the cross-network rail gross of the bridge fee. */
    amount: { amount: string; currency: string };
  };
}

/** The base units still to send: the instructions' `amount`, or while underpaid what is expected less what arrived. */
export function amountDue(payment: PaymentToPay): bigint {
  if (payment.status !== 'underpaid') return BigInt(payment.deposit_instructions.amount.amount);
  return BigInt(payment.amount_expected.amount) - BigInt(payment.amount_received?.amount ?? '0');
}

/**
 * Asserts the page shows exactly one QR code and that it decodes to the transfer that pays
 * `payment`: its token contract, chain id (and the chain it names, domain/addresses.ts), recipient
 * (the deposit address, case as the API gives it) and amount ({@link amountDue}), the token being
 * the one the instructions name. Returns the decoded text.
 */
export async function expectQrPays(page: Page, payment: PaymentToPay): Promise<string> {
  const texts = await decodeQrCodes(page);
  expect(texts).toHaveLength(1);
  const di = payment.deposit_instructions;
  const t = parseErc20TransferUri(texts[0]);
  expect({ ...t, chain: resolveChain(String(t.chainId)) }).toEqual({
    tokenAddress: di.token_address,
    chainId: di.chain_id,
    chain: di.chain,
    functionName: 'transfer',
    recipient: di.address,
    amount: amountDue(payment),
  });
  expect(di.asset).toBe(di.amount.currency);
  return texts[0];
}

/**
 * The current payment of the payer's page at `pageUrl` (`/pay/<token>`), as its merchant reads it
 * (`GET /v1/payments/{id}`; the id from the payer session, spec 4.1).
 */
export async function currentPayment(merchant: ReturnType<typeof client>, pageUrl: string): Promise<PaymentToPay> {
  const token = new URL(pageUrl).pathname.split('/pay/')[1].split('/')[0];
  const s = expectOk(await call('GET', `/v1/payment_sessions/${token}`, undefined, { idem: null }));
  expect(s.current_payment_id).toMatch(/^pay_/);
  return expectOk(await merchant.get(`/v1/payments/${s.current_payment_id}`));
}
