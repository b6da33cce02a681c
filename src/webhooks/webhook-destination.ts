import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The longest URL an endpoint may have (the column's check too). */
export const URL_MAX_LENGTH = 2048;

/**
 * The destination policy: which URLs and addresses a webhook may be sent to, used by
 * `webhooks:add` (refusing what can never be a destination, before any delivery) and by the
 * transport before every connection (resolve the name once, judge every address, pin the first:
 * no second resolution between the check and the connect, so DNS cannot rebind to an internal
 * address). Without WEBHOOK_ALLOW_PRIVATE: https and public unicast addresses only. With it
 * (development): plain http and private addresses too, but never a cloud metadata endpoint.
 */
export class DestinationPolicy {
  private readonly resolver: (hostname: string) => Promise<Array<{ address: string; family: number }>>;

  constructor(
    readonly allowPrivate: boolean,
    resolver?: (hostname: string) => Promise<Array<{ address: string; family: number }>>,
  ) {
    this.resolver = resolver ?? resolveAll;
  }

  /** Why the URL can never be a destination (judged before any DNS); null when it may be one. */
  refusedUrl(url: string): string | null {
    return refusedUrl(url, this.allowPrivate);
  }

  /** Why a resolved address may not be connected to; null when it may. */
  refusedAddress(address: string): string | null {
    return this.allowPrivate ? (notAnAddress(address) ?? metadataAddress(address)) : refusedAddress(address);
  }

  /**
   * Resolve, judge, pin: the address to connect to for `host` (the URL's host, brackets off), the
   * first of its addresses once every one was judged. Throws DestinationRefused with the reason
   * when one is refused, DestinationUnresolved when the name has no address now.
   */
  async destination(host: string): Promise<Destination> {
    const literal = isIP(host);
    let answers: Array<{ address: string; family: number }>;
    if (literal) answers = [{ address: host, family: literal }];
    else {
      try {
        answers = await this.resolver(host);
      } catch (error) {
        throw new DestinationUnresolved(dnsReasonOf(error));
      }
    }
    if (answers.length === 0) throw new DestinationUnresolved('host has no address');
    for (const { address } of answers) {
      const refusal = this.refusedAddress(address);
      if (refusal) throw new DestinationRefused(refusal, address);
    }
    // Canonical form, IPv4-mapped unwrapped: the address connected to is the one judged.
    const ip = ipaddr.process(answers[0].address);
    return ip.kind() === 'ipv4' ? { address: ip.toString(), family: 4 } : { address: ip.toString(), family: 6 };
  }
}

/** An address or URL the policy refuses; the message is the reason (never the URL: its query may hold a token). */
export class DestinationRefused extends Error {
  constructor(
    reason: string,
    /** The refused address a name resolved to (absent for a URL refused as written). */
    readonly address?: string,
  ) {
    super(reason);
  }
}
/** A name without an address now (DNS failed or answered nothing): a retry may resolve it. */
export class DestinationUnresolved extends Error {}

export interface Destination {
  address: string;
  family: 4 | 6;
}

/**
 * Cloud instance-metadata and credential endpoints, refused always, even with
 * WEBHOOK_ALLOW_PRIVATE=1, since they hand out the host's credentials: the whole IPv4 link-local
 * range 169.254.0.0/16 (AWS, GCP, Azure and OpenStack metadata at 169.254.169.254, the ECS task
 * credentials at 169.254.170.2 and 169.254.170.23, and whatever a provider adds there), AWS's
 * IPv6 ones and Alibaba's. An IPv4 address is judged in every IPv6 form that carries it.
 */
const METADATA_V4_RANGE = ipaddr.parseCIDR('169.254.0.0/16') as [ipaddr.IPv4, number];
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', 'fd00:ec2::23', '100.100.100.200']);
const METADATA_NAMES = ['metadata.google.internal', 'metadata'];

/** Why `address` (any textual form) is a metadata endpoint; null when it is not. */
export function metadataAddress(address: string): string | null {
  if (notAnAddress(address) || !ipaddr.isValid(address)) return null;
  const ip = ipaddr.process(address);
  const v4 = ip.kind() === 'ipv4' ? (ip as ipaddr.IPv4) : (carriedIPv4(ip as ipaddr.IPv6)?.v4 ?? null);
  const metadata = (v4 && (v4.match(METADATA_V4_RANGE) || METADATA_ADDRESSES.has(v4.toString()))) || METADATA_ADDRESSES.has(ip.toString());
  return metadata ? `${address} is a cloud metadata address` : null;
}

/** The well-known NAT64 prefix (RFC 6052), which an IPv6-only network's DNS64 answers for public IPv4 hosts. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];
/** The well-known NAT64 prefix for local use (RFC 8215). */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];
/** IPv4-translated addresses (RFC 6145, ::ffff:0:a.b.c.d). */
const TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96') as [ipaddr.IPv6, number];

/** The IPv6 forms that carry an IPv4 address (IPv4-mapped aside: ipaddr.process unwraps it). */
type Carrier = 'nat64' | '6to4' | 'local-nat64' | 'translated' | 'compatible';

/**
 * The IPv4 address an IPv6 address carries, and in which form; null when it carries none. Ours
 * because ipaddr.js unwraps only the IPv4-mapped form (process, toIPv4Address) and Node's
 * net.BlockList only tests membership of a range.
 */
function carriedIPv4(ip: ipaddr.IPv6): { carrier: Carrier; v4: ipaddr.IPv4 } | null {
  const [, high6to4, low6to4, , , , high, low] = ip.parts;
  const v4 = (carrier: Carrier, h = high, l = low) => ({ carrier, v4: new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]) });
  if (ip.match(NAT64)) return v4('nat64');
  if (ip.range() === '6to4') return v4('6to4', high6to4, low6to4);
  if (ip.match(LOCAL_NAT64)) return v4('local-nat64');
  if (ip.match(TRANSLATED)) return v4('translated');
  if (ipv4CompatibleForm(ip)) return v4('compatible');
  return null;
}

/** ::/96, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1): the first six words zero, `::` and `::1` included. */
function ipv4CompatibleForm(ip: ipaddr.IPv6): boolean {
  return ip.parts.slice(0, 6).every((part) => part === 0);
}

/** Names that only ever mean this machine or its private network. */
const LOCAL_NAMES = ['localhost', 'metadata.google.internal'];
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal'];

/**
 * Why a URL can never be a webhook destination, checked when one is added (before any DNS)
 * and again before each attempt; null when acceptable. Without `allowPrivate`: https only, and
 * a literal IP or a local name is judged here, since no DNS answer will be asked for it.
 * Reasons never repeat the URL: its path or query may carry the integrator's token.
 */
export function refusedUrl(url: string, allowPrivate: boolean): string | null {
  if (url.length > URL_MAX_LENGTH) return `the URL is longer than ${URL_MAX_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) return `only ${schemes.join(' or ')} URLs are accepted`;
  if (parsed.username || parsed.password) return 'credentials in the URL (user:pass@) are not accepted';
  // An empty fragment (`https://a/#`) leaves `hash` empty but keeps the `#` in href.
  if (parsed.hash || parsed.href.includes('#')) return 'a URL fragment (#...) is not accepted';
  const host = hostOf(parsed);
  if (!host) return 'the URL has no host';
  // Private destinations allowed (development): still never a cloud metadata endpoint.
  if (allowPrivate) {
    const bare = host.replace(/\.+$/, '');
    if (METADATA_NAMES.includes(bare)) return `${bare} is a cloud metadata name`;
    return isIP(host) ? metadataAddress(host) : null;
  }
  if (isIP(host)) return refusedAddress(host);
  // WHATWG URL parsing lowercases names and turns numeric forms (0x7f.1, 2130706433) into dotted IPv4.
  const name = host.replace(/\.+$/, '');
  if (LOCAL_NAMES.includes(name) || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return `${name} is a local name`;
  return null;
}

/** What a refused address is, by ipaddr.js's range name. Only 'unicast' is ever allowed. */
const RANGE_NAMES: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  carrierGradeNat: 'a carrier-grade NAT address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  teredo: 'a Teredo tunnel address',
  rfc6145: 'an IPv4-translated address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
};

/** 2000::/3, the only IPv6 space allocated as global unicast (ipaddr.js calls everything it has no name for 'unicast'). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** The carriers whose IPv4 address decides; every other one is refused whole (NAT64 for local use among them). */
const JUDGED_BY_IPV4: ReadonlySet<Carrier> = new Set(['nat64', '6to4']);

/**
 * Why an IP address may not be connected to; null when public. Forms that carry an IPv4 address
 * are judged by it: IPv4-mapped (`::ffff:10.0.0.1`, what ipaddr.process unwraps), NAT64
 * (64:ff9b::/96, which an IPv6-only network with DNS64 legitimately answers for public IPv4
 * hosts) and 6to4 (2002::/16). The deprecated IPv4-compatible ::/96 and Teredo (2001::/32,
 * whose client address is obfuscated and which tunnels anywhere) are refused outright, as is
 * every other special-purpose range and anything outside 2000::/3.
 */
export function refusedAddress(address: string): string | null {
  const malformed = notAnAddress(address);
  if (malformed) return malformed;
  // ipaddr.js reads ::a.b.c.d (IPv4-compatible, deprecated) as ::ffff:a.b.c.d: refuse it first.
  if (ipv4Compatible(address)) return `${address} is an IPv4-compatible address (deprecated)`;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') {
    const kind = forbiddenKind(ip.range());
    return kind && `${address} is ${kind}`;
  }
  const v6 = ip as ipaddr.IPv6;
  const carried = carriedIPv4(v6);
  if (carried && JUDGED_BY_IPV4.has(carried.carrier)) {
    const kind = forbiddenKind(carried.v4.range());
    return kind && `${address} embeds ${carried.v4.toString()}, ${kind}`;
  }
  const range = v6.range();
  if (range === 'unicast' && carried?.carrier === 'compatible') return `${address} is an IPv4-compatible address (deprecated)`;
  const kind = forbiddenKind(range);
  if (kind) return `${address} is ${kind}`;
  if (!v6.match(GLOBAL_UNICAST)) return `${address} is outside the global unicast space (2000::/3)`;
  return null;
}

/** ::a.b.c.d or ::xxxx:yyyy (not ::, ::1 or ::ffff:…), judged from the text: ipaddr.js parses the dotted form as IPv4-mapped. */
function ipv4Compatible(address: string): boolean {
  if (!address.includes(':')) return false;
  const dotted = /^(.*:)\d+\.\d+\.\d+\.\d+$/.exec(address);
  const ip = ipaddr.parse(dotted ? `${dotted[1]}0:0` : address) as ipaddr.IPv6;
  return ipv4CompatibleForm(ip) && (dotted !== null || ip.parts[6] !== 0);
}

/** Only the plain textual forms a resolver gives: no zone index (fe80::1%eth0), no 0x7f.1 or 2130706433. */
function notAnAddress(address: string): string | null {
  return isIP(address) && !address.includes('%') ? null : `${address.slice(0, 60)} is not an IP address`;
}

/** What an ipaddr.js range is, phrased; null for 'unicast', the only one allowed. */
function forbiddenKind(range: string): string | null {
  return range === 'unicast' ? null : (RANGE_NAMES[range] ?? `a special-purpose address (${range})`);
}

/** The URL's host as an address or name: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

async function resolveAll(hostname: string): Promise<Destination[]> {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function dnsReasonOf(error: unknown): string {
  const code = codeOf(error);
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ENODATA') return 'host has no address';
  return code ? `DNS lookup failed (${code})` : 'DNS lookup failed';
}

export function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,60}$/.test(code) ? code : null;
}
