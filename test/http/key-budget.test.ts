import { keyBudget } from '../../src/modules/businesses/api-key-rate-limit.middleware.js';

const business = (rateLimitTier: 'standard' | 'growth' | 'enterprise', perMinute: number | null = null, burst: number | null = null) => ({
  rateLimitTier,
  rateLimitPerMinute: perMinute,
  rateLimitBurst: burst,
});

describe('budget per API key (table A)', () => {
  it.each([
    ['standard', business('standard'), { perMinute: 60, burst: 120 }],
    ['growth', business('growth'), { perMinute: 300, burst: 600 }],
    ['standard ignores custom figures', business('standard', 1000, 2000), { perMinute: 60, burst: 120 }],
    ['enterprise uses its own figures', business('enterprise', 1000, 1500), { perMinute: 1000, burst: 1500 }],
    ['enterprise without a burst gets twice its rate', business('enterprise', 1000), { perMinute: 1000, burst: 2000 }],
    ['enterprise without figures gets growth', business('enterprise'), { perMinute: 300, burst: 600 }],
    ['a burst below the rate is raised to the rate', business('enterprise', 100, 50), { perMinute: 100, burst: 100 }],
  ])('%s', (_name, b, expected) => {
    expect(keyBudget(b)).toEqual(expected);
  });
});
