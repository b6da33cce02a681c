import { createPrivateKey, createPublicKey } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { IsInt, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { Type } from 'class-transformer';

/*
 * The checks the environment's variables are declared with (environment.ts and each area's
 * variables): the patterns and validators that say what a value must look like.
 */

export const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s]+$/;
export const REDIS_URL = /^rediss?:\/\/[^\s]+$/;
export const QUOTA = /^[1-9]\d{0,8}\/[1-9]\d{0,6}$/;
export const DURATION = /^[1-9]\d{0,8}[smhd]?$/;
/** One PEM block; JWT_PUBLIC_KEYS holds several, concatenated. */
export const PEM_BLOCK = /-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g;

export function isRsaPrivateKey(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return createPrivateKey(value).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

export function isRsaPublicKeyList(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const blocks = value.match(PEM_BLOCK);
  if (!blocks) return false;
  try {
    return blocks.every((b) => createPublicKey(b).asymmetricKeyType === 'rsa');
  } catch {
    return false;
  }
}

/** Express's named ranges, or comma-separated addresses and CIDRs. */
export function isTrustProxy(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return value.split(',').every((part) => {
    const p = part.trim();
    if (['loopback', 'linklocal', 'uniquelocal'].includes(p)) return true;
    if (p.includes('/')) {
      try {
        ipaddr.parseCIDR(p);
        return true;
      } catch {
        return false;
      }
    }
    return ipaddr.isValid(p);
  });
}

/** Where integrators reach the service: the OpenAPI document's server and token URL. */
export function isPublicBaseUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** An integer variable within bounds; `unit` only words the message. */
export function IntegerIn(min: number, max: number, unit = '') {
  const message = `must be an integer${unit ? ` number of${unit}` : ''} from ${min} to ${max}`;
  return (target: object, key: string) => {
    Type(() => Number)(target, key);
    IsInt({ message })(target, key);
    Min(min, { message })(target, key);
    Max(max, { message })(target, key);
  };
}

export function Satisfies(test: (v: unknown) => boolean, message: string, options?: ValidationOptions) {
  return ValidateBy({ name: 'satisfies', validator: { validate: test, defaultMessage: () => message } }, options);
}

/** What an area's variables extend: the variables declared before it (a mixin's base takes any arguments). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type VariablesBase = new (...args: any[]) => object;
