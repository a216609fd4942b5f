/**
 * Unsigned EVM calls the service builds for the holder to sign (spec 2.5: nothing in the API can
 * sign; every movement out of the wallet is built here, signed outside with the holder's passkey).
 * An ERC-20 `transfer(to, amount)` on a stablecoin contract and the conversion router's
 * `convert(tokenIn, tokenOut, amountIn, minAmountOut, reference)`: their call data and decoding
 * (the sandbox signer reads back what it signs). Amounts are bigint minor units of the token.
 *
 * Pure: no I/O (viem's ABI coder).
 */
import { decodeFunctionData, encodeFunctionData, erc20Abi, getAddress, isAddress } from 'viem';

/** An unsigned EVM transaction: call `data` on contract `to` with no native value. */
export interface UnsignedEvmCall {
  chain: string;
  chain_id: number;
  /** The holder's wallet address (EIP-55) that must sign it. */
  from: string;
  /** The token contract the call goes to. */
  to: string;
  /** Native value in wei (always `0`: only stablecoins move). */
  value: '0';
  /** ABI-encoded `transfer(address,uint256)` call data. */
  data: `0x${string}`;
}

/** The ERC-20 transfer of `amount` minor units of the token at `token` to `recipient`, signed by `from` on `chain`. */
export function erc20TransferCall(input: {
  chain: string;
  chainId: number;
  from: string;
  token: string;
  recipient: string;
  amount: bigint;
}): UnsignedEvmCall {
  return {
    chain: input.chain,
    chain_id: input.chainId,
    from: getAddress(input.from),
    to: getAddress(input.token),
    value: '0',
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(input.recipient), input.amount] }),
  };
}

/** Decodes ERC-20 `transfer` call data; null when `data` is anything else (or malformed). */
export function decodeErc20Transfer(data: string): { recipient: string; amount: bigint } | null {
  if (!/^0x[0-9a-fA-F]*$/.test(data)) return null;
  try {
    const d = decodeFunctionData({ abi: erc20Abi, data: data as `0x${string}` });
    if (d.functionName !== 'transfer') return null;
    const [recipient, amount] = d.args as readonly [string, bigint];
    return isAddress(recipient, { strict: false }) ? { recipient: getAddress(recipient), amount } : null;
  } catch {
    return null;
  }
}

/** ABI of the conversion router's `convert` (the holder's conversion transaction pays `amountIn` of `tokenIn` into the router). */
export const CONVERSION_ROUTER_ABI = [
  {
    type: 'function',
    name: 'convert',
    stateMutability: 'nonpayable',
    outputs: [],
    inputs: [
      { name: 'tokenIn', type: 'address' },
      { name: 'tokenOut', type: 'address' },
      { name: 'amountIn', type: 'uint256' },
      { name: 'minAmountOut', type: 'uint256' },
      { name: 'reference', type: 'string' },
    ],
  },
] as const;

/** Call data of `convert(tokenIn, tokenOut, amountIn, minAmountOut, reference)`. */
export function conversionCallData(input: {
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  minAmountOut: bigint;
  reference: string;
}): `0x${string}` {
  return encodeFunctionData({
    abi: CONVERSION_ROUTER_ABI,
    functionName: 'convert',
    args: [getAddress(input.tokenIn), getAddress(input.tokenOut), input.amountIn, input.minAmountOut, input.reference],
  });
}

/** Decodes `convert` call data; null for anything else. */
export function decodeConversionCall(
  data: string,
): { tokenIn: string; tokenOut: string; amountIn: bigint; minAmountOut: bigint; reference: string } | null {
  if (!/^0x[0-9a-fA-F]*$/.test(data)) return null;
  try {
    const d = decodeFunctionData({ abi: CONVERSION_ROUTER_ABI, data: data as `0x${string}` });
    const [tokenIn, tokenOut, amountIn, minAmountOut, reference] = d.args;
    return { tokenIn: getAddress(tokenIn), tokenOut: getAddress(tokenOut), amountIn, minAmountOut, reference };
  } catch {
    return null;
  }
}
