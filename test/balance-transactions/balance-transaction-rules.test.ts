import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  BALANCE_TRANSACTION_TYPES,
  BALANCE_TYPES,
  LEDGER_KINDS,
  balanceTransactionId,
  pairsOf,
  parseBalanceTransactionId,
  sourceOfReference,
  typeOf,
} from '../../src/modules/balance-transactions/balance-transaction.rules.js';
import { balanceTransactionsCsv, csvField } from '../../src/modules/balance-transactions/balance-transaction.csv.js';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

describe('ledger kinds as balance transaction types', () => {
  it('maps every ledger kind the service posts, so no money move is left out of the invariant', () => {
    const posted = new Set<string>();
    for (const file of sourceFiles('src/modules')) {
      const text = readFileSync(file, 'utf8');
      if (!/post(Transaction|Covered)\(/.test(text)) continue;
      for (const match of text.matchAll(/kind: '([a-z_.]+)'/g)) posted.add(match[1]);
    }
    // Outbox messages, not postings; and a completed refund moves refunds_in_flight to the processor, in no balance.
    for (const notABalanceMove of ['workflow.start', 'event.fanout', 'refund.completed']) posted.delete(notABalanceMove);
    expect(posted.size).toBeGreaterThan(5);
    expect([...posted].filter((kind) => !LEDGER_KINDS.includes(kind))).toEqual([]);
  });

  it('gives a payment two types by balance and refuses a balance a kind never moves', () => {
    expect(typeOf('payment', 'available')).toBe('payment');
    expect(typeOf('payment', 'reserved')).toBe('reserve_hold');
    expect(typeOf('withdrawal.paid', 'pending_withdrawal')).toBe('withdrawal');
    expect(() => typeOf('payment', 'pending_withdrawal')).toThrow(RangeError);
    expect(() => typeOf('adjustment', 'available')).toThrow(RangeError);
  });

  it('filters each type to exactly the pairs typeOf names it for', () => {
    for (const type of BALANCE_TRANSACTION_TYPES) {
      for (const { kind, balanceType } of pairsOf(type)) {
        for (const b of balanceType ? [balanceType] : BALANCE_TYPES) {
          if (kind !== 'payment' || b !== 'pending_withdrawal') expect(typeOf(kind, b)).toBe(type);
        }
      }
    }
    expect(pairsOf('fee')).toEqual([]);
    expect(pairsOf('reserve_hold')).toEqual([{ kind: 'payment', balanceType: 'reserved' }]);
  });

  it('names a reserve as the source of each of its releases', () => {
    expect(sourceOfReference('reserve.release', 'res_abc#2')).toBe('res_abc');
    expect(sourceOfReference('refund.created', 'ref_abc')).toBe('ref_abc');
  });
});

describe('balance transaction ids', () => {
  it('read back into the ledger transaction and balance type they were made from', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{32}$/), fc.constantFrom(...BALANCE_TYPES), (hex, balanceType) => {
        const id = balanceTransactionId(`ltx_${hex}`, balanceType);
        expect(parseBalanceTransactionId(id)).toEqual({ ledgerTransactionId: `ltx_${hex}`, balanceType });
      }),
    );
    expect(parseBalanceTransactionId('txn_123')).toBeNull();
    expect(parseBalanceTransactionId(`ltx_${'0'.repeat(32)}_a`)).toBeNull();
  });
});

describe('CSV export', () => {
  it('quotes fields with commas, quotes or line breaks, and leaves the rest bare', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(-450)).toBe('-450');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it.each(['=HYPERLINK("https://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'])(
    'neutralises a text cell a spreadsheet would run as a formula: %j',
    (text) => {
      const field = csvField(text);
      const unquoted = field.startsWith('"') ? field.slice(1, -1).replaceAll('""', '"') : field;
      expect(unquoted).toBe(`'${text}`);
    },
  );

  it('leaves numbers as numbers, a negative amount included, and text that starts harmlessly as it is', () => {
    expect(csvField(-4658)).toBe('-4658');
    expect(csvField('Refund of a 10% sale = fine')).toBe('Refund of a 10% sale = fine');
    expect(balanceTransactionsCsv([{ id: 'txn_2_a', type: 'payment', amountInCents: 100, feeInCents: 0, netInCents: 100, balanceType: 'available', sourceId: 's', createdAt: 'T', availableOn: 'T', description: '=1+1', funding: null } as never]).split('\n')[1]).toBe(
      "txn_2_a,payment,100,0,100,available,s,T,T,'=1+1,",
    );
  });

  it('writes the header and one row per item, a refund funding in one cell', () => {
    const csv = balanceTransactionsCsv([
      {
        id: 'txn_1_a', type: 'refund', amountInCents: -100, feeInCents: 0, netInCents: -100, balanceType: 'available', sourceId: 'ref_1',
        createdAt: 'T', availableOn: 'T', description: 'Refund, "partial"', funding: [{ from: 'available', amountInCents: 60 }, { from: 'res_1', amountInCents: 40 }],
      },
    ]);
    expect(csv.split('\n')).toEqual([
      'id,type,amountInCents,feeInCents,netInCents,balanceType,sourceId,createdAt,availableOn,description,funding',
      'txn_1_a,refund,-100,0,-100,available,ref_1,T,T,"Refund, ""partial""",available:60;res_1:40',
    ]);
  });
});
