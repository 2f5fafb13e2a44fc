import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import {
  destinationSchema,
  type Destination,
  type WithdrawalMethod,
  addWithdrawalMethod,
  listWithdrawalMethods,
  removeWithdrawalMethod,
} from '../modules/withdrawals/index.js';
import { parseOptions, UsageError, type Command, type CommandCall, type CommandResult, type Options } from './options.js';

async function methodAdd(em: EntityManager, { options, required }: CommandCall): Promise<CommandResult> {
  const businessId = required('business id');
  const destination = parseMethodOptions(options);
  const { method, added } = await addWithdrawalMethod(em, businessId, destination.destinationType, destination.destinationDetails);
  return {
    text: added
      ? `Added ${method.destinationType} withdrawal method ${method.id} to ${businessId}: ${methodLine(method)}`
      : `${businessId} already has this destination as ${method.id}: ${methodLine(method)}. Nothing added.`,
    json: { withdrawalMethod: method, added },
  };
}

async function methodList(em: EntityManager, { required }: CommandCall): Promise<CommandResult> {
  const methods = await listWithdrawalMethods(em, required('business id'));
  return { text: methods.map((m) => `${m.id}  ${methodLine(m)}`).join('\n') || 'No withdrawal methods: this business cannot withdraw.', json: { withdrawalMethods: methods } };
}

async function methodRemove(em: EntityManager, { required }: CommandCall): Promise<CommandResult> {
  const method = await removeWithdrawalMethod(em, required('withdrawal method id'));
  return {
    text: `Removed ${method.id} (${methodLine(method)}) from ${method.businessId}. New withdrawals can no longer name it; those already requested go ahead.`,
    json: { withdrawalMethod: method },
  };
}

/** `withdrawal-method …`: where a business's withdrawals may go. */
export const withdrawalMethodCommands: Record<string, Command> = {
  'withdrawal-method add': methodAdd,
  'withdrawal-method list': methodList,
  'withdrawal-method remove': methodRemove,
};

/** `--type wallet --wallet-email …` or `--type crypto --coin … --network … --address …`, by the withdrawal rules. */
function parseMethodOptions(options: Options): Destination {
  const type = parseOptions(z.object({ type: z.enum(['wallet', 'crypto'], { error: 'wallet or crypto' }) }), options).type;
  const fields: Record<string, string> =
    type === 'wallet' ? { walletEmail: 'wallet-email' } : { cryptoCoin: 'coin', cryptoNetwork: 'network', cryptoAddress: 'address' };
  const details = Object.fromEntries(Object.entries(fields).map(([key, option]) => [key, options[option]]));
  const result = destinationSchema.safeParse({ destinationType: type, destinationDetails: details });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue.path.at(-1));
  throw new UsageError(`--${fields[field] ?? field}: ${fields[field] && options[fields[field]] === undefined ? 'required' : issue.message}`);
}

function methodLine(method: WithdrawalMethod): string {
  const d = method.details;
  return method.destinationType === 'wallet' ? `wallet ${d.walletEmail}` : `crypto ${d.cryptoCoin} ${d.cryptoNetwork} ${d.cryptoAddress}`;
}
