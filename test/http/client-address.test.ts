import { ConfigError, loadConfig } from '../../src/config.js';
import { addressBudgetKey, forwardedRequest, proxyRanges } from '../../src/http/client-address.js';
import { canonicalSessionId } from '../../src/modules/checkout/pay.routes.js';

describe('forwardedRequest: who is asking', () => {
  const proxies = proxyRanges(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32']);

  it.each([
    ['a peer that is no proxy: its own address, whatever it forwards', '203.0.113.5', '198.51.100.1', 'http', '203.0.113.5', null],
    ['a proxy: the address it appended', '10.1.2.3', '198.51.100.1', 'https', '198.51.100.1', 'https'],
    ['a proxy: only what proxies wrote, read from the right', '10.1.2.3', '6.6.6.6, 198.51.100.1, 10.9.9.9', 'https', '198.51.100.1', 'https'],
    ['a proxy that forwards nothing: the proxy itself', '192.0.2.1', '', '', '192.0.2.1', null],
    ['a garbage hop stops the walk at the last address known', '10.1.2.3', '198.51.100.1, nonsense, 10.2.2.2', '', '10.2.2.2', null],
    ['IPv4-mapped IPv6 peer: read as IPv4', '::ffff:10.1.2.3', '198.51.100.9', 'http', '198.51.100.9', 'http'],
    ['IPv6 proxy', '2001:db8::1', '2001:db9::7', 'HTTPS', '2001:db9::7', 'https'],
    ["several protos: the nearest proxy's, on the right", '10.1.2.3', '198.51.100.1', 'https, http', '198.51.100.1', 'http'],
  ])('%s', (_what, peer, forwardedFor, proto, client, forwardedProto) => {
    expect(forwardedRequest(peer, forwardedFor, proto, proxies)).toMatchObject({ client, forwardedProto });
  });

  it('believes nobody with no proxies configured', () => {
    expect(forwardedRequest('127.0.0.1', '198.51.100.1', 'http', proxyRanges([]))).toMatchObject({ client: '127.0.0.1', forwardedProto: null });
  });
});

describe('configuration of the public limit and the proxies', () => {
  const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });

  it('defaults to 120 requests a minute per address and to no trusted proxy', () => {
    expect(load({}).http).toMatchObject({ publicRateLimitPerMinute: 120, trustedProxies: [] });
    expect(load({ PUBLIC_RATE_LIMIT_PER_MINUTE: '0', TRUSTED_PROXIES: '10.0.0.0/8, ::1' }).http).toMatchObject({
      publicRateLimitPerMinute: 0,
      trustedProxies: ['10.0.0.0/8', '::1'],
    });
  });

  it.each([
    [{ PUBLIC_RATE_LIMIT_PER_MINUTE: '-1' }, /PUBLIC_RATE_LIMIT_PER_MINUTE/],
    [{ PUBLIC_RATE_LIMIT_PER_MINUTE: 'lots' }, /PUBLIC_RATE_LIMIT_PER_MINUTE/],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, /TRUSTED_PROXIES: "10.0.0.0\/33" is not an IP address or CIDR range/],
    [{ TRUSTED_PROXIES: 'proxy.internal' }, /TRUSTED_PROXIES/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY=true needs TRUSTED_PROXIES/],
  ])('refuses %j at start-up', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});

describe('canonicalSessionId', () => {
  const id = '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e';
  it.each([id, id.toUpperCase(), id.replaceAll('-', ''), `{${id}}`, '0190F4C2A7E07B3C-9D1E2F3A4B5C6D7E'])('%s names the same session', (spelling) => {
    expect(canonicalSessionId(spelling)).toBe(id);
  });
  it('leaves what is no UUID as it is, bounded', () => {
    expect(canonicalSessionId('nope')).toBe('nope');
    expect(canonicalSessionId('x'.repeat(300))).toHaveLength(64);
  });
});

describe('addressBudgetKey: what the public limit counts against', () => {
  it('counts an IPv4 address, mapped or not, as itself', () => {
    expect(addressBudgetKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBudgetKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every IPv6 address of one /64 as one client', () => {
    const a = addressBudgetKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(addressBudgetKey('2001:db8:1:2::1')).toBe(a);
    expect(addressBudgetKey('2001:db8:1:3::1')).not.toBe(a);
  });
});
