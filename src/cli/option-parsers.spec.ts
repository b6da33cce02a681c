import { AdminError } from '../common/errors/admin-error';
import { choiceOption, decimalOption, instantOption, integerOption, required, textOption } from './option-parsers';

const refusal = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    return error instanceof AdminError ? { code: error.code, message: error.message } : error;
  }
  throw new Error('expected a refusal');
};

describe('CLI option parsers', () => {
  it('trims text and refuses a blank value as missing', () => {
    expect(textOption('name', '  Acme  ')).toBe('Acme');
    expect(refusal(() => textOption('name', '   '))).toEqual({ code: 'INVALID_ARGUMENTS', message: '--name is required' });
  });

  it('reads whole numbers within bounds, digits only', () => {
    expect(integerOption('limit', '1000', 1, 1000)).toBe(1000);
    expect(integerOption('meetings', '0', 0, 10)).toBe(0);
    for (const bad of ['0', '1001', '-1', '1e2', '10.5', 'many', '', '99999999999999999999'])
      expect(refusal(() => integerOption('limit', bad, 1, 1000))).toEqual({
        code: 'INVALID_ARGUMENTS',
        message: '--limit must be an integer from 1 to 1000',
      });
  });

  it('reads numbers with or without a fraction within bounds, digits and a point only', () => {
    expect(decimalOption('minutes', '0.05', 0.01, 1440)).toBe(0.05);
    expect(decimalOption('minutes', ' 1440 ', 0.01, 1440)).toBe(1440);
    expect(decimalOption('minutes', '0.01', 0.01, 1440)).toBe(0.01);
    for (const bad of ['0', '0.001', '1441', '-1', '1e1', '.5', '5.', '1,5', 'NaN', 'Infinity', 'soon', ''])
      expect(refusal(() => decimalOption('minutes', bad, 0.01, 1440))).toEqual({
        code: 'INVALID_ARGUMENTS',
        message: '--minutes must be a number from 0.01 to 1440',
      });
  });

  it('reads RFC 3339 instants with an offset as UTC text, and refuses anything else', () => {
    expect(instantOption('since', '2026-01-02T03:04:05-03:00')).toBe('2026-01-02T06:04:05.000000Z');
    expect(refusal(() => instantOption('since', 'yesterday'))).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: '--since must be an RFC 3339 date-time with an offset',
    });
  });

  it('accepts one of the listed words only, and names them', () => {
    expect(choiceOption('api-access', 'off', ['on', 'off'])).toBe('off');
    expect(refusal(() => choiceOption('api-access', 'maybe', ['on', 'off']))).toMatchObject({ message: '--api-access must be on or off' });
    expect(refusal(() => choiceOption('feature', 'X', ['A', 'B', 'C']))).toMatchObject({ message: '--feature must be one of A, B, C' });
  });

  it('refuses a missing required option by its flag', () => {
    expect(required('x', 'company')).toBe('x');
    expect(refusal(() => required(undefined, 'company'))).toEqual({ code: 'INVALID_ARGUMENTS', message: '--company is required' });
  });
});
