/**
 * Chains and address formats of the address book (spec 2.11 "Address book entry", 4.8 chain list).
 *
 * - `resolveChain(input)`: a chain id or name, case-insensitive (`Ethereum`, `eth`, `1`, ...) to
 *   its canonical name, or null when the chain is not supported (the request enum is closed:
 *   the caller answers `400 invalid_request` param `chain`).
 * - `checkAddress(chain, address, network)`: validates `address` for `chain` with the format's
 *   own checksum (EIP-55 through viem for EVM chains; base58check, bech32/bech32m through
 *   @scure/base; TON's CRC16 through @ton/core) and returns the address kept verbatim (case preserved) plus the
 *   comparison key used to find duplicates (lower-cased where the format is case-insensitive).
 *
 * Pure: no I/O.
 */
import { base58, base58xrp, bech32, bech32m, createBase58check } from '@scure/base';
import { Address } from '@ton/core';
import { isAddress, sha256 } from 'viem';

/** Canonical chain names accepted by the address book. */
export type ChainName =
  | 'ethereum'
  | 'bsc'
  | 'polygon'
  | 'arbitrum'
  | 'optimism'
  | 'base'
  | 'avalanche'
  | 'tempo'
  | 'bitcoin'
  | 'tron'
  | 'solana'
  | 'xrp'
  | 'ton'
  | 'cardano'
  | 'cosmos';

type Family = 'evm' | 'bitcoin' | 'tron' | 'solana' | 'xrp' | 'ton' | 'cardano' | 'cosmos';

interface ChainInfo {
  family: Family;
  aliases: string[];
}

/** Supported chains with their accepted aliases (names and EVM chain ids, lower-case). */
export const CHAINS: Readonly<Record<ChainName, ChainInfo>> = Object.freeze({
  ethereum: { family: 'evm', aliases: ['ethereum', 'eth', '1'] },
  bsc: { family: 'evm', aliases: ['bsc', 'bnb', 'bnb chain', '56'] },
  polygon: { family: 'evm', aliases: ['polygon', 'matic', '137'] },
  arbitrum: { family: 'evm', aliases: ['arbitrum', '42161'] },
  optimism: { family: 'evm', aliases: ['optimism', '10'] },
  base: { family: 'evm', aliases: ['base', '8453'] },
  avalanche: { family: 'evm', aliases: ['avalanche', 'avax', '43114'] },
  tempo: { family: 'evm', aliases: ['tempo', '4217', '42429'] },
  bitcoin: { family: 'bitcoin', aliases: ['bitcoin', 'btc'] },
  tron: { family: 'tron', aliases: ['tron', 'trx'] },
  solana: { family: 'solana', aliases: ['solana', 'sol'] },
  xrp: { family: 'xrp', aliases: ['xrp', 'ripple'] },
  ton: { family: 'ton', aliases: ['ton', 'toncoin'] },
  cardano: { family: 'cardano', aliases: ['cardano', 'ada'] },
  cosmos: { family: 'cosmos', aliases: ['cosmos', 'atom'] },
});

export const CHAIN_NAMES: readonly ChainName[] = Object.freeze(Object.keys(CHAINS) as ChainName[]);

const ALIAS = new Map<string, ChainName>();
for (const name of CHAIN_NAMES) for (const a of CHAINS[name].aliases) ALIAS.set(a, name);

/** Canonical chain for an id or name (case-insensitive, trimmed); null when unsupported. */
export function resolveChain(input: unknown): ChainName | null {
  if (typeof input === 'number' && Number.isInteger(input)) input = String(input);
  if (typeof input !== 'string') return null;
  return ALIAS.get(input.trim().toLowerCase()) ?? null;
}

export type AddressCheck = { ok: true; address: string; key: string } | { ok: false; reason: string };

const sha = (b: Uint8Array): Uint8Array => sha256(b, 'bytes');
const base58check = createBase58check(sha);
const ZERO_EVM = /^0x0{40}$/i;

function fail(reason: string): AddressCheck {
  return { ok: false, reason };
}

function evm(a: string): AddressCheck {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) return fail('an EVM address is 0x followed by 40 hexadecimal characters');
  if (ZERO_EVM.test(a)) return fail('the zero address cannot receive funds');
  // EIP-55: an address whose hex letters are all lower- or all upper-case carries no checksum;
  // a mixed-case one must match its checksum (viem's strict check).
  const hex = a.slice(2);
  const uncased = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!uncased && !isAddress(a, { strict: true })) return fail('the mixed-case address fails its EIP-55 checksum');
  return { ok: true, address: a, key: a.toLowerCase() };
}

function decodeBase58check(a: string): Uint8Array | null {
  try {
    return base58check.decode(a);
  } catch {
    return null;
  }
}

function segwit(a: string, hrp: string): AddressCheck {
  const lower = a.toLowerCase();
  if (a !== lower && a !== a.toUpperCase()) return fail('a bech32 address is all lower-case or all upper-case');
  let words: number[];
  try {
    // Witness version 0 uses bech32, versions 1..16 bech32m (BIP 173, BIP 350).
    const v0 = (() => {
      try {
        return bech32.decode(lower as `${string}1${string}`);
      } catch {
        return null;
      }
    })();
    const v1 = v0 ? null : bech32m.decode(lower as `${string}1${string}`);
    const d = v0 ?? v1!;
    if (d.prefix !== hrp) return fail(`a bech32 address on this network starts with ${hrp}1`);
    words = d.words;
    if (!words.length) return fail('empty witness program');
    const version = words[0];
    if ((version === 0) !== (v0 !== null)) return fail('wrong bech32 variant for the witness version');
    if (version > 16) return fail('unknown witness version');
    const program = bech32.fromWords(words.slice(1));
    if (version === 0 && program.length !== 20 && program.length !== 32) return fail('a version 0 witness program is 20 or 32 bytes');
    if (program.length < 2 || program.length > 40) return fail('witness program length out of range');
  } catch {
    return fail('not a valid bech32 address (checksum or characters)');
  }
  return { ok: true, address: a, key: lower };
}

function bitcoin(a: string, network: 'mainnet' | 'testnet'): AddressCheck {
  const hrp = network === 'mainnet' ? 'bc' : 'tb';
  if (/^(bc|tb)1/i.test(a)) return segwit(a, hrp);
  const bytes = decodeBase58check(a);
  if (!bytes) return fail('not a valid base58check or bech32 bitcoin address');
  const versions = network === 'mainnet' ? [0x00, 0x05] : [0x6f, 0xc4];
  if (bytes.length !== 21 || !versions.includes(bytes[0])) return fail(`not a ${network} bitcoin address`);
  return { ok: true, address: a, key: a };
}

function tron(a: string): AddressCheck {
  const bytes = decodeBase58check(a);
  if (!bytes || bytes.length !== 21 || bytes[0] !== 0x41) return fail('a Tron address is base58check with version 0x41 (starts with T)');
  return { ok: true, address: a, key: a };
}

function solana(a: string): AddressCheck {
  if (a.length < 32 || a.length > 44) return fail('a Solana address is 32 to 44 base58 characters');
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(a);
  } catch {
    return fail('not base58');
  }
  if (bytes.length !== 32) return fail('a Solana address decodes to 32 bytes');
  return { ok: true, address: a, key: a };
}

function xrp(a: string): AddressCheck {
  let bytes: Uint8Array;
  try {
    bytes = base58xrp.decode(a);
  } catch {
    return fail('not an XRP base58 address');
  }
  if (bytes.length !== 25 || bytes[0] !== 0x00) return fail('a classic XRP address starts with r and decodes to 25 bytes');
  const payload = bytes.slice(0, 21);
  const check = sha(sha(payload)).slice(0, 4);
  for (let i = 0; i < 4; i++) if (check[i] !== bytes[21 + i]) return fail('the XRP address checksum does not match');
  return { ok: true, address: a, key: a };
}

function cosmos(a: string): AddressCheck {
  try {
    const d = bech32.decode(a as `${string}1${string}`);
    if (d.prefix !== 'cosmos') return fail('a Cosmos Hub address starts with cosmos1');
    const program = bech32.fromWords(d.words);
    if (program.length !== 20 && program.length !== 32) return fail('a Cosmos address is 20 or 32 bytes');
  } catch {
    return fail('not a valid bech32 Cosmos address');
  }
  return { ok: true, address: a, key: a.toLowerCase() };
}

/**
 * TON: the user-friendly form (48 characters of base64 or base64url: flags, workchain, 32-byte
 * account id and its CRC16, checked by @ton/core) or the raw `workchain:64 hex` form. The key is
 * the raw form, so the bounceable and non-bounceable spellings of one account are one address.
 */
function ton(a: string): AddressCheck {
  try {
    if (!Address.isFriendly(a) && !Address.isRaw(a)) return fail('not a TON address (user-friendly or raw form)');
    const parsed = Address.parse(a);
    return { ok: true, address: a, key: parsed.toRawString().toLowerCase() };
  } catch {
    return fail('the TON address fails its checksum');
  }
}

/** Cardano: a Shelley bech32 address (`addr1` on mainnet, `addr_test1` on test networks; checksum checked). */
function cardano(a: string, network: 'mainnet' | 'testnet'): AddressCheck {
  if (a !== a.toLowerCase()) return fail('a Cardano address is lower-case bech32');
  try {
    const d = bech32.decode(a as `${string}1${string}`, false);
    const expected = network === 'mainnet' ? 'addr' : 'addr_test';
    if (d.prefix !== expected) return fail(`a Cardano address on this network starts with ${expected}1`);
    const payload = bech32.fromWords(d.words);
    if (payload.length < 29) return fail('a Cardano address carries at least a header and a 28-byte credential');
  } catch {
    return fail('not a valid bech32 Cardano address');
  }
  return { ok: true, address: a, key: a };
}

/**
 * Validates `raw` (trimmed) as an address on `chain` for the environment `network` (bitcoin
 * testnet addresses are accepted only on the test network and mainnet ones only on mainnet).
 * Returns the address verbatim (never re-cased) and its duplicate-detection key, or a reason.
 */
export function checkAddress(chain: ChainName, raw: string, network: 'mainnet' | 'testnet'): AddressCheck {
  const a = raw.trim();
  if (!a || /\s/.test(a)) return fail('the address is empty or contains whitespace');
  switch (CHAINS[chain].family) {
    case 'evm':
      return evm(a);
    case 'bitcoin':
      return bitcoin(a, network);
    case 'tron':
      return tron(a);
    case 'solana':
      return solana(a);
    case 'xrp':
      return xrp(a);
    case 'ton':
      return ton(a);
    case 'cardano':
      return cardano(a, network);
    case 'cosmos':
      return cosmos(a);
  }
}
