import { createHash, createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { randomIdBody } from '../common/ids/public-id';
import { AppConfig } from '../config/app-config';
import { RuntimeSecrets } from '../config/runtime-secrets';
import { AuthErrors } from './auth-errors';

export const TOKEN_ISSUER = 'urn:conversation-read-api';
export const TOKEN_AUDIENCE = 'urn:conversation-read-api:v1';
/** RFC 9068 access-token media type, in the JOSE header. */
export const TOKEN_TYPE = 'at+jwt';
/** Our instances sign and verify on NTP-synchronised clocks: a little skew, not minutes. */
export const CLOCK_TOLERANCE_SECONDS = 2;
/** Far above any token we issue; longer input is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 4096;
/** Verified tokens remembered at most (about 1 KB each): far more than the clients one instance serves at once. */
export const VERIFIED_TOKENS = 10_000;

/** What an access token asserts (API-DECISIONS.md "Tokens and credentials"). */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  /** The client id. */
  sub: string;
  /** The company's public id. */
  company: string;
  /** Space-separated granted scopes. */
  scope: string;
  /** Credential version at issuance. */
  ver: number;
  /**
   * The secret presented for the token (its fingerprint, src/clients/client-secret.ts): the token
   * stands only while that secret does. Absent from tokens issued before it was recorded.
   */
  sec?: string;
  iat: number;
  exp: number;
  jti: string;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

/**
 * Issues and verifies RS256 access tokens. The signing key's `kid` is its RFC 7638 JWK
 * thumbprint; tokens verify against the signing key or any key of JWT_PUBLIC_KEYS (the
 * previous keys during a rotation), chosen by `kid` and only among those.
 */
@Injectable()
export class AccessTokens {
  private readonly signingKey: KeyObject;
  private readonly signingKid: string;
  private readonly verificationKeys = new Map<string, KeyObject>();
  private readonly ttlSeconds: number;
  /** Tokens verified before, with their claims, least recently used first. */
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(secrets: RuntimeSecrets, config: AppConfig) {
    this.signingKey = createPrivateKey(secrets.jwtPrivateKey);
    const publicKey = createPublicKey(this.signingKey);
    this.signingKid = thumbprint(publicKey);
    for (const key of [publicKey, ...secrets.jwtPublicKeys.map((pem) => createPublicKey(pem))]) {
      this.verificationKeys.set(thumbprint(key), key);
    }
    this.ttlSeconds = config.jwt.ttlSeconds;
  }

  issue(subject: { clientId: string; companyPublicId: string; scopes: readonly string[]; version: number; secretId: string }): IssuedToken {
    const claims = {
      company: subject.companyPublicId,
      scope: subject.scopes.join(' '),
      ver: subject.version,
      sec: subject.secretId,
    };
    const token = jwt.sign(claims, this.signingKey, {
      algorithm: 'RS256',
      header: { alg: 'RS256', typ: TOKEN_TYPE, kid: this.signingKid },
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: subject.clientId,
      expiresIn: this.ttlSeconds,
      jwtid: `tok_${randomIdBody()}`,
    });
    return { token, expiresIn: this.ttlSeconds };
  }

  /**
   * The claims of a valid token; anything else is `401 INVALID_ACCESS_TOKEN`. A token that
   * verified once is remembered (VERIFIED_TOKENS, least recently used out) until it expires: its
   * signature and claims cannot change, so only its expiry is checked again, and the RSA
   * verification (about a tenth of a single read's CPU) is paid once per token, not per request.
   * Whether it may still be used (revocation, the client's state) is checked on every request.
   */
  verify(token: string): AccessTokenClaims {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp + CLOCK_TOLERANCE_SECONDS > Math.floor(Date.now() / 1000)) {
        this.verified.delete(token); // most recently used: to the end
        this.verified.set(token, known);
        return known;
      }
      this.verified.delete(token);
    }
    const claims = this.verifyNow(token);
    if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, claims);
    return claims;
  }

  private verifyNow(token: string): AccessTokenClaims {
    if (token.length > MAX_TOKEN_LENGTH) throw AuthErrors.invalidToken();
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    const key = typeof kid === 'string' ? this.verificationKeys.get(kid) : undefined;
    if (!decoded || !key || decoded.header.typ !== TOKEN_TYPE) throw AuthErrors.invalidToken();
    let payload: unknown;
    try {
      payload = jwt.verify(token, key, {
        algorithms: ['RS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
    } catch (error) {
      if (error instanceof jwt.TokenExpiredError) throw AuthErrors.invalidToken('The access token has expired; request a new one.');
      throw AuthErrors.invalidToken();
    }
    if (!hasClaims(payload)) throw AuthErrors.invalidToken();
    // jsonwebtoken checks neither: a token from the future, or one meant to outlive the
    // configured lifetime, was not issued by us (or was issued with a skewed clock).
    const now = Math.floor(Date.now() / 1000);
    if (payload.iat > now + CLOCK_TOLERANCE_SECONDS || payload.exp - payload.iat > this.ttlSeconds) throw AuthErrors.invalidToken();
    return payload;
  }
}

/** jsonwebtoken checks `exp` only when present: every claim we rely on must be there, typed. */
function hasClaims(payload: unknown): payload is AccessTokenClaims {
  if (!payload || typeof payload !== 'object') return false;
  const p = payload as Record<string, unknown>;
  return (
    typeof p.sub === 'string' &&
    typeof p.company === 'string' &&
    typeof p.scope === 'string' &&
    Number.isInteger(p.ver) &&
    (p.sec === undefined || (typeof p.sec === 'string' && /^[0-9a-f]{16}$/.test(p.sec))) &&
    typeof p.jti === 'string' &&
    Number.isInteger(p.iat) &&
    Number.isInteger(p.exp)
  );
}

/** RFC 7638 JWK thumbprint of an RSA public key: the `kid` of tokens signed by its private key. */
export function thumbprint(key: KeyObject): string {
  const { e, kty, n } = key.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ e, kty, n })).digest('base64url');
}
