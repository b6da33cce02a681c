import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * A credential's optional list of IPv4/IPv6 CIDRs. Empty means any address. An
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, what a dual-stack socket reports for an
 * IPv4 peer) is matched as the IPv4 address it carries.
 */
export class AddressAllowList {
  private constructor(private readonly ranges: Range[]) {}

  /**
   * Parses CIDRs separated by spaces or commas into their canonical network form
   * (`203.0.113.7/24` becomes `203.0.113.0/24`; a bare address is a single host); throws
   * naming the first invalid entry. IPv4 must be four decimal parts: `10.1` is refused, not
   * silently read as 10.0.0.1.
   */
  static parse(text: string): AddressAllowList {
    const entries = text.split(/[\s,]+/).filter(Boolean);
    return new AddressAllowList(entries.map(parseRange));
  }

  /** From stored canonical CIDRs. */
  static of(cidrs: readonly string[]): AddressAllowList {
    return AddressAllowList.parse(cidrs.join(' '));
  }

  /** Canonical CIDR strings, as stored and printed; duplicates removed. */
  get cidrs(): string[] {
    return [...new Set(this.ranges.map(([address, bits]) => `${networkOf(address, bits)}/${bits}`))];
  }

  permits(address: string | undefined): boolean {
    if (this.ranges.length === 0) return true;
    if (!address || !ipaddr.isValid(address)) return false;
    const peer = ipaddr.process(address);
    return this.ranges.some(([range, bits]) => {
      if (peer.kind() === range.kind()) return peer.match([range, bits] as never);
      // An IPv6 range written for mapped addresses (::ffff:0:0/96 and narrower) covers IPv4 peers.
      return peer.kind() === 'ipv4' && (peer as ipaddr.IPv4).toIPv4MappedAddress().match([range as ipaddr.IPv6, bits]);
    });
  }
}

function parseRange(entry: string): Range {
  const ipv6 = entry.includes(':');
  const cidr = entry.includes('/') ? entry : `${entry}/${ipv6 ? 128 : 32}`;
  const valid = ipv6 ? !cidr.includes('%') && ipaddr.IPv6.isValidCIDR(cidr) : ipaddr.IPv4.isValidCIDRFourPartDecimal(cidr);
  if (!valid) throw new InvalidCidrError(entry);
  return ipaddr.parseCIDR(cidr);
}

function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): string {
  const cidr = `${address.toString()}/${bits}`;
  if (address.kind() === 'ipv4') return ipaddr.IPv4.networkAddressFromCIDR(cidr).toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(cidr);
  return network.isIPv4MappedAddress() ? `::ffff:${network.toIPv4Address().toString()}` : network.toRFC5952String();
}

export class InvalidCidrError extends Error {
  constructor(readonly entry: string) {
    super(`${JSON.stringify(entry.slice(0, 60))} is not an IPv4 or IPv6 CIDR (for example 203.0.113.0/24 or 2001:db8::/32)`);
  }
}
