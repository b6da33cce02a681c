import { generateKeyPairSync } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { RuntimeSecrets } from '../config/runtime-secrets';
import { AccessTokens, CLOCK_TOLERANCE_SECONDS, VERIFIED_TOKENS } from './access-tokens';

const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const tokens = () =>
  new AccessTokens({ jwtPrivateKey: key, jwtPublicKeys: [] } as unknown as RuntimeSecrets, { jwt: { ttlSeconds: 60 } } as AppConfig);
const subject = {
  clientId: 'cli_0123456789abcdefghijkl',
  companyPublicId: 'cmp_0123456789abcdefghijkl',
  scopes: ['meetings.read'],
  version: 1,
  secretId: '0123456789abcdef',
};

describe('AccessTokens: verified tokens remembered', () => {
  afterEach(() => jest.restoreAllMocks());

  it('verifies a token once: the same claims again without the signature check, until it expires', () => {
    const t = tokens();
    const { token } = t.issue(subject);
    const first = t.verify(token);
    const rsa = jest.spyOn(t as unknown as { verifyNow(token: string): unknown }, 'verifyNow');
    expect(t.verify(token)).toBe(first);
    expect(rsa).not.toHaveBeenCalled();
    // Past its expiry (and the clock tolerance) it is checked afresh, and refused as expired.
    jest.spyOn(Date, 'now').mockReturnValue((first.exp + CLOCK_TOLERANCE_SECONDS) * 1000);
    expect(() => t.verify(token)).toThrow(/expired/);
    expect(rsa).toHaveBeenCalledTimes(1);
  });

  it('remembers nothing of a token that failed', () => {
    const t = tokens();
    const { token } = t.issue(subject);
    const forged = `${token.slice(0, -4)}AAAA`;
    expect(() => t.verify(forged)).toThrow();
    const rsa = jest.spyOn(t as unknown as { verifyNow(token: string): unknown }, 'verifyNow');
    expect(() => t.verify(forged)).toThrow();
    expect(rsa).toHaveBeenCalledTimes(1);
  });

  it(`keeps at most ${VERIFIED_TOKENS} tokens, forgetting the least recently used`, () => {
    const t = tokens();
    const remembered = (t as unknown as { verified: Map<string, unknown> }).verified;
    const [a, b] = [t.issue(subject).token, t.issue(subject).token];
    t.verify(a);
    t.verify(b);
    t.verify(a); // a is now the most recently used
    for (let i = 0; remembered.size < VERIFIED_TOKENS; i++) remembered.set(`filler-${i}`, {});
    t.verify(t.issue(subject).token); // one more: the least recently used (b) goes
    expect(remembered.size).toBe(VERIFIED_TOKENS);
    expect(remembered.has(b)).toBe(false);
    expect(remembered.has(a)).toBe(true);
  });
});
