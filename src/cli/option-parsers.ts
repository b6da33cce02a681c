import { AdminError } from '../common/errors/admin-error';
import { Instant } from '../common/validation/instant';

/*
 * What the commands' `@Option` parsers share: each turns the text given after a flag into the
 * value the command works with, or refuses it with INVALID_ARGUMENTS before anything runs.
 */

const invalid = (message: string) => new AdminError('INVALID_ARGUMENTS', message);

/** A value that must not be blank, trimmed. */
export function textOption(flag: string, value: string): string {
  if (value.trim() === '') throw invalid(`--${flag} is required`);
  return value.trim();
}

/** A whole number from `min` to `max` (digits only: no sign, exponent or fraction). */
export function integerOption(flag: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalid(`--${flag} must be an integer from ${min} to ${max}`);
  return n;
}

/** A number from `min` to `max`, with a fraction or without (digits and one point only: no sign or exponent). */
export function decimalOption(flag: string, value: string, min: number, max: number): number {
  const n = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isFinite(n) || n < min || n > max) throw invalid(`--${flag} must be a number from ${min} to ${max}`);
  return n;
}

/** An RFC 3339 instant with an offset, as the UTC text PostgreSQL reads exactly. */
export function instantOption(flag: string, value: string): string {
  const instant = Instant.parse(value);
  if (!instant) throw invalid(`--${flag} must be an RFC 3339 date-time with an offset`);
  return instant.iso;
}

/** One of a fixed list of words. */
export function choiceOption<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value))
    throw invalid(`--${flag} must be ${choices.length > 2 ? `one of ${choices.join(', ')}` : choices.join(' or ')}`);
  return value as T;
}

/** An option a command cannot run without. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw invalid(`--${flag} is required`);
  return value;
}
