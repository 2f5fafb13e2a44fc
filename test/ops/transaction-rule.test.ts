/**
 * The transaction rule (src/db/transaction.ts): a transaction is opened at the edge and passed down as
 * `tx`, never joined through propagation options. MikroORM writes the joined transaction into the
 * options object it is given, so a shared options constant leaked one request's transaction into every
 * later one; no code may pass propagation options at all.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

describe('the transaction rule', () => {
  it('no service, activity or workflow joins a transaction through propagation options', () => {
    const offenders = ['src', 'activities', 'workflows']
      .flatMap(sources)
      .filter((file) => /TransactionPropagation|propagation\s*:/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
