import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { centsToDecimalString } from '../domain/money.js';
import { DISPUTE_REASONS } from '../../contracts/disputes.js';
import { type Dispute, enterDisputeDecision, recordDisputeNotice, disputeView } from '../modules/disputes/index.js';
import { money, parseOptions, required, UsageError, type CommandDeps, type CommandResult, type Options } from './options.js';

export const disputeUsage = `  dispute open SESSION_ID [--reason ${DISPUTE_REASONS.join('|')}] [--amount 12.34] [--inquiry]
                  the acquirer's notice of a dispute (a chargeback unless --inquiry); one per session
  dispute decide DISPUTE_ID --outcome won|lost
                  the acquirer's decision, recorded by the dispute's workflow (needs Temporal)`;

const openOptions = z.object({
  reason: z.enum(DISPUTE_REASONS, { error: `one of ${DISPUTE_REASONS.join(', ')}` }).default('general'),
  amount: money.refine((cents) => cents > 0, { error: 'must be at least 0.01' }).optional(),
  inquiry: z.boolean().default(false),
});
const decideOptions = z.object({ outcome: z.enum(['won', 'lost'], { error: 'won or lost' }) });

const dollars = (cents: number) => `$${centsToDecimalString(cents)}`;

function describe(d: Dispute): string {
  const kind = d.status.startsWith('warning_') ? 'Inquiry' : 'Chargeback';
  const funding =
    d.fromAvailableInCents == null
      ? 'no money moves'
      : `${dollars(d.amountInCents)} + ${dollars(d.feeInCents)} fee withdrawn: ${dollars(d.fromAvailableInCents)} from available, ${dollars(d.fromReservesInCents ?? 0)} from reserves, ${dollars(d.owedInCents ?? 0)} owed`;
  return `${kind} ${d.id} (${d.reason}) on session ${d.checkoutSessionId}: ${d.status}; ${funding}; evidence due by ${d.evidenceDueBy.toISOString()}`;
}

/**
 * `dispute open` and `dispute decide`: what an operator enters from a real acquirer's reports, in either
 * mode (the session says which). The notice opens the dispute here, in one transaction; the decision is
 * recorded by the dispute's workflow, which this command waits for.
 */
export async function disputeCommand(em: EntityManager, action: string | undefined, target: string | undefined, options: Options, deps: CommandDeps): Promise<CommandResult> {
  const usage = `Usage: npm run admin -- <command> [options] [--json]\n\n${disputeUsage}`;
  switch (action) {
    case 'open': {
      const checkoutSessionId = required(target, 'session id', usage);
      const o = parseOptions(openOptions, options);
      if (!deps.disputeTimes) throw new UsageError('dispute open needs the dispute settings (DISPUTE_RESPONSE_WINDOW)');
      const times = deps.disputeTimes;
      const notice = { checkoutSessionId, reason: o.reason, amountInCents: o.amount ?? null, inquiry: o.inquiry };
      const { dispute, opened } = await em.transactional((tx) => recordDisputeNotice(tx, notice, times));
      return {
        text: opened ? `Opened: ${describe(dispute)}.` : `Session ${checkoutSessionId} is disputed already; nothing opened. ${describe(dispute)}.`,
        json: { dispute: disputeView(dispute), opened },
      };
    }
    case 'decide': {
      const id = required(target, 'dispute id', usage);
      const o = parseOptions(decideOptions, options);
      if (!deps.temporal) throw new UsageError('dispute decide needs Temporal');
      const { dispute, changed } = await enterDisputeDecision(em, await deps.temporal(), id, o.outcome);
      return {
        text: changed ? `Decided ${o.outcome}: ${describe(dispute)}.` : `Nothing changed: ${describe(dispute)}.`,
        json: { dispute: disputeView(dispute), changed },
        exitCode: changed ? 0 : 1,
      };
    }
    default:
      throw new UsageError(usage);
  }
}
