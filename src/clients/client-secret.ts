import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base62 } from '../common/ids/public-id';

/** Prefix of client secrets, so that secret scanners (and people) recognise a leaked one. */
export const CLIENT_SECRET_PREFIX = 'secret_';

/** 256 random bits take 43 base62 characters. */
const SECRET_BODY_LENGTH = 43;

/** A new client secret: 256 random bits. Shown once, never stored. */
export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + base62(randomBytes(32), SECRET_BODY_LENGTH);
}

/**
 * What is stored of a secret. A fast hash is the right tool here: the secret is 256 random
 * bits, so there is nothing for a slow password hash to protect against guessing.
 */
export function hashClientSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Stand-in hashes compared when a client is unknown or has fewer secrets, so every check costs the same. */
const DECOY_HASHES = [randomBytes(32), randomBytes(32)];

/** The number of stored secrets a candidate is compared with: the most that can be valid at once. */
export const MAX_VALID_SECRETS = 2;

/**
 * Whether `candidate` is one of the `valid` secrets (given as stored hashes). Always hashes
 * once and compares MAX_VALID_SECRETS times in constant time, whether the client exists,
 * has one secret or two, so a wrong secret and an unknown client take the same time.
 */
/**
 * What a token records of the secret presented for it: the first 8 bytes of SHA-256 of the
 * secret's stored hash, in hex, as `app_client_token_secrets` computes them
 * (src/auth/token-secrets-sql.ts). It tells a client's secrets apart and reveals nothing of them.
 */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(hashClientSecret(secret)).digest().subarray(0, 8).toString('hex');
}

export function clientSecretMatches(candidate: string, valid: readonly Buffer[]): boolean {
  const digest = hashClientSecret(candidate);
  let matched = false;
  for (let i = 0; i < MAX_VALID_SECRETS; i++) {
    const stored = valid[i]?.length === digest.length ? valid[i] : DECOY_HASHES[i];
    // Non-short-circuit OR: both comparisons always run.
    matched = timingSafeEqual(digest, stored) || matched;
  }
  return matched;
}
