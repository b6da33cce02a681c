/**
 * structured-headers publishes its types only through package `exports`, which this
 * project's `moduleResolution: node` does not read; the part the tests use, declared here.
 */
declare module 'structured-headers' {
  export type BareItem = string | number | boolean | { toString(): string };
  export type Parameters = Map<string, BareItem>;
  export function parseList(input: string): Array<[BareItem | Array<[BareItem, Parameters]>, Parameters]>;
  export function parseItem(input: string): [BareItem, Parameters];
}
