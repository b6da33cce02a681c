import fc from 'fast-check';
import { AddressAllowList, InvalidCidrError } from './address-allow-list';

describe('AddressAllowList', () => {
  it('permits any address when empty', () => {
    expect(AddressAllowList.parse('').permits('198.51.100.1')).toBe(true);
    expect(AddressAllowList.parse('   ').permits('2001:db8::1')).toBe(true);
  });

  it('normalises entries to their network, dropping duplicates; a bare address is one host', () => {
    expect(AddressAllowList.parse('203.0.113.7/24, 203.0.113.0/24 2001:DB8:0::1/32 10.0.0.1 ::1').cidrs).toEqual([
      '203.0.113.0/24',
      '2001:db8::/32',
      '10.0.0.1/32',
      '::1/128',
    ]);
  });

  it.each(['10.1/8', '1.2.3.4/33', '300.1.1.1/8', '2001:db8::/129', 'fe80::1%eth0/64', 'example.com', '0x7f.0.0.1/8'])(
    'refuses %s',
    (entry) => {
      expect(() => AddressAllowList.parse(`203.0.113.0/24 ${entry}`)).toThrow(InvalidCidrError);
    },
  );

  it.each([
    ['203.0.113.0/24', '203.0.113.255', true],
    ['203.0.113.0/24', '203.0.114.0', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['203.0.113.0/24', '::ffff:203.0.113.9', true],
    ['203.0.113.0/24', '::ffff:198.51.100.9', false],
    ['::ffff:203.0.113.0/120', '203.0.113.9', true],
    ['203.0.113.0/24', '2001:db8::1', false],
    ['2001:db8::/32', '203.0.113.9', false],
    ['203.0.113.0/24', undefined, false],
    ['203.0.113.0/24', 'not-an-address', false],
  ])('%s permits %s: %s', (cidrs, address, expected) => {
    expect(AddressAllowList.parse(cidrs).permits(address)).toBe(expected);
  });

  it('matches an IPv4 address exactly as its IPv4-mapped IPv6 form, for any address and prefix', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (network, peer, bits) => {
        const list = AddressAllowList.parse(`${network}/${bits}`);
        expect(list.permits(`::ffff:${peer}`)).toBe(list.permits(peer));
      }),
    );
  });

  it('permits every address of a parsed CIDR (its own network address included)', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 128 }), (address, bits) => {
        const list = AddressAllowList.parse(`${address}/${bits}`);
        expect(list.permits(address)).toBe(true);
        expect(AddressAllowList.of(list.cidrs).cidrs).toEqual(list.cidrs);
      }),
    );
  });
});
