import { jest } from '@jest/globals';
import type { Logger } from 'pino';
import { paymentProcessor } from '../../src/main/payment-processor.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';

describe('choosing the payment processor at start-up', () => {
  const logger = () => ({ warn: jest.fn() }) as unknown as Logger & { warn: jest.Mock };
  const simulated = { livePayments: 'simulated', liveWithdrawals: 'simulated', acquirer: null } as const;

  it('warns in production that the simulator serves live keys', () => {
    const log = logger();
    expect(paymentProcessor({ ...simulated, env: 'production' }, { log })).toBe(simulatorProcessor);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(String(log.warn.mock.calls[0][0])).toMatch(/simulator is serving LIVE API keys/);
  });

  it('stays quiet in development and tests', () => {
    const log = logger();
    expect(paymentProcessor({ ...simulated, env: 'development' }, { log })).toBe(simulatorProcessor);
    expect(log.warn).not.toHaveBeenCalled();
  });
});
