import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { authorised, type CodecEndpoint } from '../../src/temporal/codec-server.js';
import { isLoopbackHost } from '../../src/loopback.js';

const endpoint = (over: Partial<CodecEndpoint>): CodecEndpoint => ({
  codec: new EncryptionCodec([{ id: 'k', key: Buffer.alloc(32, 1) }]),
  authToken: undefined,
  openWithoutToken: false,
  corsOrigins: [],
  ...over,
});

describe('who may call the codec endpoint', () => {
  it('with a token: only the exact bearer token, whatever the host', () => {
    const e = endpoint({ authToken: 'secret-token' });
    expect(authorised(e, 'Bearer secret-token', 'ops.example:9464')).toBe(true);
    expect(authorised(e, 'Bearer secret-tokeN', '127.0.0.1:9464')).toBe(false);
    expect(authorised(e, undefined, '127.0.0.1:9464')).toBe(false);
  });

  it('without a token and not opened (production, tests, a non-loopback listener): nobody', () => {
    expect(authorised(endpoint({}), undefined, '127.0.0.1:9464')).toBe(false);
  });

  it('opened without a token (npm start): only requests addressed to a loopback name, so a DNS-rebound page is refused', () => {
    const e = endpoint({ openWithoutToken: true });
    for (const host of ['127.0.0.1:9464', 'localhost:9464', '[::1]:9464', '127.1.2.3']) expect(authorised(e, undefined, host)).toBe(true);
    for (const host of ['attacker.example:9464', '10.0.0.5:9464', undefined]) expect(authorised(e, undefined, host)).toBe(false);
  });

  it('knows a loopback listener address from any other', () => {
    expect(['127.0.0.1', 'localhost', '::1'].map(isLoopbackHost)).toEqual([true, true, true]);
    expect(['0.0.0.0', '192.168.1.10', '::'].map(isLoopbackHost)).toEqual([false, false, false]);
  });
});
