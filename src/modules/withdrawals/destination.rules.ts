import { z } from 'zod';
import { email } from '../../domain/validation.js';

/**
 * Where a withdrawal is paid: a wallet account (by e-mail) or a crypto address on a network. The
 * address rules are shape checks: `0x` + 40 hex for ERC20, `T` + 33 base58 characters for TRC20.
 */
export const CRYPTO_COINS = ['USDT', 'USDC'] as const;
export const CRYPTO_NETWORKS = ['ERC20', 'TRC20'] as const;
export type CryptoNetwork = (typeof CRYPTO_NETWORKS)[number];

const ADDRESS_RULES: Record<CryptoNetwork, { pattern: RegExp; message: string }> = {
  ERC20: { pattern: /^0x[0-9a-fA-F]{40}$/, message: 'ERC20 address must be 0x followed by 40 hexadecimal characters' },
  TRC20: {
    pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
    message: 'TRC20 address must be T followed by 33 base58 characters',
  },
};

/** The address problem for a network, or null when the address fits it. */
export function cryptoAddressProblem(network: CryptoNetwork, address: string): string | null {
  const rule = ADDRESS_RULES[network];
  if (!rule) return null; // an unknown network is reported on its own field
  return rule.pattern.test(address) ? null : rule.message;
}

export const walletDetails = z
  .strictObject({ walletEmail: email() }, { error: 'Destination details must be an object' })
  .meta({ example: { walletEmail: 'payouts@example.com' } });

export const cryptoDetails = z
  .strictObject(
    {
      cryptoCoin: z.enum(CRYPTO_COINS, { error: 'Crypto coin must be one of USDT, USDC' }),
      cryptoNetwork: z.enum(CRYPTO_NETWORKS, { error: 'Crypto network must be one of ERC20, TRC20' }),
      cryptoAddress: z.string({ error: 'Crypto address is required' }),
    },
    { error: 'Destination details must be an object' },
  )
  .superRefine((details, ctx) => {
    const problem = cryptoAddressProblem(details.cryptoNetwork, details.cryptoAddress);
    if (problem) ctx.addIssue({ code: 'custom', path: ['cryptoAddress'], message: problem });
  })
  // The address rule per network, written out for the API document (a refinement has no JSON Schema).
  .meta({
    oneOf: CRYPTO_NETWORKS.map((network) => ({
      properties: { cryptoNetwork: { const: network }, cryptoAddress: { pattern: ADDRESS_RULES[network].pattern.source } },
    })),
    example: { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
  });

export type WalletDestination = { destinationType: 'wallet'; destinationDetails: z.output<typeof walletDetails> };
export type CryptoDestination = { destinationType: 'crypto'; destinationDetails: z.output<typeof cryptoDetails> };
export type Destination = WalletDestination | CryptoDestination;

/** A destination on its own (a withdrawal method): the same rules as a withdrawal's. */
export const destinationSchema = z.discriminatedUnion(
  'destinationType',
  [
    z.strictObject({ destinationType: z.literal('wallet'), destinationDetails: walletDetails }),
    z.strictObject({ destinationType: z.literal('crypto'), destinationDetails: cryptoDetails }),
  ],
  { error: 'Destination type must be wallet or crypto' },
);

/**
 * The destination as the JSON text the spec returns. Keys in a fixed order and only the keys of its
 * type, so the same destination always reads the same.
 */
export function destinationText(destination: Destination): string {
  switch (destination.destinationType) {
    case 'wallet':
      return JSON.stringify({ walletEmail: destination.destinationDetails.walletEmail });
    case 'crypto': {
      const { cryptoCoin, cryptoNetwork, cryptoAddress } = destination.destinationDetails;
      return JSON.stringify({ cryptoCoin, cryptoNetwork, cryptoAddress });
    }
  }
}

/** The networks whose addresses are hex, so their letter case carries no meaning. */
const EVM_NETWORKS: ReadonlySet<string> = new Set<CryptoNetwork>(['ERC20']);

/**
 * Two spellings of one destination share one key; different destinations never do. This is how a
 * withdrawal is matched to a method the business registered: e-mail addresses case-insensitively (mail
 * systems treat them so), coin and network exactly, EVM addresses (ERC20) case-insensitively (their
 * letter case is only a checksum), and base58 addresses (TRC20) exactly (their case is the address).
 */
export function destinationKey(destination: Destination): string {
  switch (destination.destinationType) {
    case 'wallet':
      return `wallet:${destination.destinationDetails.walletEmail.toLowerCase()}`;
    case 'crypto': {
      const { cryptoCoin, cryptoNetwork, cryptoAddress } = destination.destinationDetails;
      const address = EVM_NETWORKS.has(cryptoNetwork) ? cryptoAddress.toLowerCase() : cryptoAddress;
      return `crypto:${cryptoCoin}:${cryptoNetwork}:${address}`;
    }
  }
}

/** The registered destination a withdrawal names, or undefined when it names none of them. */
export function matchingDestination<T extends Destination>(registered: readonly T[], requested: Destination): T | undefined {
  const key = destinationKey(requested);
  return registered.find((candidate) => destinationKey(candidate) === key);
}

/** Reads back what `destinationText` wrote. */
export function parseDestination(destinationType: 'wallet' | 'crypto', text: string): Destination {
  return { destinationType, destinationDetails: JSON.parse(text) } as Destination;
}
