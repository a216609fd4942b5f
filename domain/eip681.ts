/**
 * EIP-681 payment request URIs (the payer page's QR code): an ERC-20 `transfer` of
 * `amount` base units of the token at `tokenAddress` on chain `chainId` to `recipient`:
 * `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<amount>`. A wallet that scans it
 * fills in the network, the token, the recipient and the exact amount. Pure; no I/O.
 */

/** Input of `erc20TransferUri`: addresses as `0x` + 40 hex (case preserved), amount in the token's base units (minor units). */
export interface Erc20TransferRequest {
  tokenAddress: string;
  chainId: number;
  recipient: string;
  amountBaseUnits: bigint;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-681 URI of an ERC-20 transfer. Throws RangeError on a malformed address, chain id or a non-positive amount. */
export function erc20TransferUri(erc20TransferRequest: Erc20TransferRequest): string {
  if (!ADDRESS.test(erc20TransferRequest.tokenAddress)) throw new RangeError('tokenAddress must be 0x + 40 hex');
  if (!ADDRESS.test(erc20TransferRequest.recipient)) throw new RangeError('recipient must be 0x + 40 hex');
  if (!Number.isSafeInteger(erc20TransferRequest.chainId) || erc20TransferRequest.chainId <= 0)
    throw new RangeError('chainId must be a positive integer');
  if (erc20TransferRequest.amountBaseUnits <= 0n) throw new RangeError('amount must be positive');
  return `ethereum:${erc20TransferRequest.tokenAddress}@${erc20TransferRequest.chainId}/transfer?address=${erc20TransferRequest.recipient}&uint256=${erc20TransferRequest.amountBaseUnits.toString()}`;
}
