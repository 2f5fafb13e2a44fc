import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { DisputeTimes } from '../config.js';
import { dollarsToCents, percentToBps } from '../domain/money.js';

/** What a command prints: a line for people and an object for `--json`. */
export interface CommandResult {
  text: string;
  json: unknown;
  exitCode?: number;
}

export type Options = Record<string, string | boolean | undefined>;

export class UsageError extends Error {}

/** What some commands need beyond the database: the dispute clocks, and Temporal (connected on first use). */
export interface CommandDeps {
  disputeTimes?: DisputeTimes;
  temporal?: () => Promise<Client>;
}

/** One call of a command: its options, and its positional argument, named when it is read. */
export interface CommandCall {
  options: Options;
  /** The positional argument (a business id, a key id); missing, a usage error that names `what`. */
  required(what: string): string;
}

export type Command = (em: EntityManager, call: CommandCall) => Promise<CommandResult>;

export const percent = (name: string) =>
  z.coerce.number().min(0).max(100).transform((value, ctx) => {
    const bps = percentToBps(value);
    if (bps === null) ctx.addIssue({ code: 'custom', message: `${name} takes at most two decimals` });
    return bps ?? 0;
  });

export const money = z.coerce.number().min(0).transform((value, ctx) => {
  const cents = dollarsToCents(value);
  if (cents === null) ctx.addIssue({ code: 'custom', message: 'amounts take at most two decimals' });
  return cents ?? 0;
});

export function parseOptions<S extends z.ZodType>(schema: S, options: Options): z.output<S> {
  const result = schema.safeParse(options);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsageError(`--${issue.path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

export function required(value: string | undefined, what: string, usage: string): string {
  if (!value) throw new UsageError(`missing ${what}\n\n${usage}`);
  return value;
}
