import fc from 'fast-check';
import { EVENT_TYPES } from '../../src/modules/events/index.js';
import { deliveryBody } from '../../src/modules/webhooks/delivery.view.js';
import { canonicalEventType, EVENT_ALIASES, SUBSCRIBABLE_EVENTS, SUBSCRIBABLE_TYPES, subscribesTo } from '../../src/modules/webhooks/event-subscriptions.rules.js';
import { isPublicAddress, nonPublicAddresses, receiverLookup } from '../../src/modules/webhooks/private-address.rules.js';
import { generateWebhookSecret, openSecret, sealSecret } from '../../src/modules/webhooks/secret-box.crypto.js';

describe('event subscriptions', () => {
  it('reads the spec aliases as their canonical events', () => {
    expect(canonicalEventType('checkout.completed')).toBe('checkout.succeeded');
    expect(canonicalEventType('withdrawal.completed')).toBe('withdrawal.paid');
    expect(canonicalEventType('refund.created')).toBe('refund.created');
    expect(canonicalEventType('*')).toBeNull();
    expect(canonicalEventType('checkout.done')).toBeNull();
  });

  it('delivers to an alias subscription, to *, and never to an unrelated subscription', () => {
    expect(subscribesTo(['checkout.completed'], 'checkout.succeeded')).toBe(true);
    expect(subscribesTo(['withdrawal.completed'], 'withdrawal.paid')).toBe(true);
    expect(subscribesTo(['*'], 'refund.failed')).toBe(true);
    expect(subscribesTo(['checkout.completed'], 'checkout.failed')).toBe(false);
    expect(subscribesTo(['refund.created'], 'refund.completed')).toBe(false);
  });

  it('never fans the test ping out, not even to `*`: every other type is subscribable', () => {
    expect(SUBSCRIBABLE_EVENTS).not.toContain('webhook.test');
    expect(subscribesTo(['*'], 'webhook.test')).toBe(false);
    expect(SUBSCRIBABLE_TYPES).toEqual(EVENT_TYPES.filter((t) => t !== 'webhook.test'));
    expect(subscribesTo(['webhook_endpoint.disabled'], 'webhook_endpoint.disabled')).toBe(true);
  });

  it('matches exactly when the list holds *, the type, or an alias of it', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SUBSCRIBABLE_EVENTS)), fc.constantFrom(...SUBSCRIBABLE_TYPES), (list, type) => {
        const aliases = Object.entries(EVENT_ALIASES).filter(([, to]) => to === type).map(([from]) => from);
        const expected = list.includes('*') || list.includes(type) || aliases.some((a) => list.includes(a));
        expect(subscribesTo(list, type)).toBe(expected);
      }),
    );
  });
});

describe('delivery body', () => {
  it('carries both handler styles: eventType/payload and type/data, with eventId = id', () => {
    const event = {
      id: 'evt_1',
      type: 'refund.created' as const,
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
      sequence: 7,
      livemode: false,
      payload: { refundId: 'ref_1', amount: 500 },
    };
    expect(deliveryBody(event)).toBe(
      '{"id":"evt_1","eventId":"evt_1","eventType":"refund.created","type":"refund.created",' +
        '"createdAt":"2026-01-02T03:04:05.678Z","sequence":7,"livemode":false,' +
        '"payload":{"refundId":"ref_1","amount":500},"data":{"refundId":"ref_1","amount":500}}',
    );
  });
});

describe('private addresses (SSRF guard)', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', 'not-an-ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    expect(await nonPublicAddresses('mixed.example', resolve)).toEqual(['10.0.0.5']);
    // An address literal is judged as written, never looked up.
    const unused = () => Promise.reject(new Error('an address literal was looked up'));
    expect(await nonPublicAddresses('[::1]', unused)).toEqual(['::1']);
    expect(await nonPublicAddresses('8.8.8.8', unused)).toEqual([]);
  });

  it('makes the socket connect only to addresses it checked (DNS rebinding)', async () => {
    let answers = [{ address: '93.184.216.34', family: 4 }];
    const lookup = receiverLookup(async () => answers, true);
    const call = (all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        lookup('rebind.example', { all } as never, (err: unknown, address: unknown) => (err ? reject(err) : resolve(address))),
      );
    expect(await call(false)).toBe('93.184.216.34');
    expect(await call(true)).toEqual(answers);
    answers = [{ address: '127.0.0.1', family: 4 }];
    await expect(call(false)).rejects.toThrow('Refused: rebind.example resolves to a non-public address (127.0.0.1)');
  });

  it('unguarded (ALLOW_PRIVATE_WEBHOOK_URLS), hands any answer to the socket', async () => {
    const lookup = receiverLookup(async () => [{ address: '127.0.0.1', family: 4 }], false);
    const address = await new Promise((resolve, reject) => lookup('receiver.internal', {}, (err, a) => (err ? reject(err) : resolve(a))));
    expect(address).toBe('127.0.0.1');
  });
});

describe('secrets at rest', () => {
  const key = Buffer.alloc(32, 1);

  it('seals with AES-256-GCM and opens only with the same key and endpoint', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const sealed = sealSecret(key, 'wh_1', secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openSecret(key, 'wh_1', sealed)).toBe(secret);
    expect(() => openSecret(Buffer.alloc(32, 2), 'wh_1', sealed)).toThrow();
    expect(() => openSecret(key, 'wh_2', sealed)).toThrow();
    expect(sealSecret(key, 'wh_1', secret)).not.toBe(sealed); // a fresh IV every time
  });
});
