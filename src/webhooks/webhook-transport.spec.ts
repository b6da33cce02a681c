import { metadataAddress, refusedAddress, refusedUrl } from './webhook-destination';
import { DEFAULT_TRANSPORT, WebhookTransport } from './webhook-transport';

describe('refusedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'not an IP address'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0:a00:1', 'IPv4-translated'],
    ['::a00:1', 'IPv4-compatible'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'embeds 10.0.0.1, a private address'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::808:808', 'special-purpose'],
    ['2002:0a00:0001::1', 'embeds 10.0.0.1, a private address'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['4000::1', 'outside the global unicast space'],
    ['not-an-ip', 'not an IP address'],
    ['', 'not an IP address'],
    ['0x7f.1', 'not an IP address'],
    ['2130706433', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    const refusal = refusedAddress(address);
    expect(refusal).toContain(reason);
    if (address) expect(refusal).toContain(address);
  });

  it('names the address and its kind', () => {
    expect(refusedAddress('10.0.0.5')).toBe('10.0.0.5 is a private address');
    expect(refusedAddress('::ffff:127.0.0.1')).toBe('::ffff:127.0.0.1 is a loopback address');
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts the public %s', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });
});

describe('refusedUrl', () => {
  it.each([
    ['https://hooks.example.com/webhooks?token=abc', false],
    ['https://hooks.example.com:8443/path', false],
    ['https://8.8.8.8/hook', false],
    ['https://[2606:4700:4700::1111]/hook', false],
    ['http://localhost:3000/hook', true],
    ['http://127.0.0.1:3000/hook', true],
    ['https://10.0.0.5/hook', true],
  ])('accepts %s (allowPrivate %s)', (url, allowPrivate) => {
    expect(refusedUrl(url, allowPrivate)).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/', false, 'only https: URLs'],
    ['ftp://hooks.example.com/', false, 'only https: URLs'],
    ['ftp://hooks.example.com/', true, 'only https: or http: URLs'],
    ['file:///etc/passwd', true, 'only https: or http: URLs'],
    ['javascript:alert(1)', false, 'only https: URLs'],
    ['https://user:pass@hooks.example.com/', false, 'credentials'],
    ['https://user@hooks.example.com/', true, 'credentials'],
    ['https://hooks.example.com/#frag', false, 'fragment'],
    ['https://hooks.example.com/#', false, 'fragment'],
    ['https://localhost/', false, 'localhost is a local name'],
    ['https://LOCALHOST./', false, 'localhost is a local name'],
    ['https://api.localhost/', false, 'local name'],
    ['https://printer.local/', false, 'local name'],
    ['https://db.internal/', false, 'local name'],
    ['https://metadata.google.internal/computeMetadata/v1/', false, 'local name'],
    ['https://127.0.0.1/', false, 'loopback'],
    ['https://0x7f.1/', false, 'loopback'],
    ['https://2130706433/', false, 'loopback'],
    ['https://10.0.0.5:8443/', false, 'private'],
    ['https://169.254.169.254/latest/meta-data/', false, 'link-local'],
    ['https://[::1]/', false, 'loopback'],
    ['https://[::ffff:10.0.0.1]/', false, 'private'],
    ['https://[fd00:ec2::254]/', false, 'unique-local'],
    ['https://0.0.0.0/', false, 'unspecified'],
    ['not a url', false, 'not a valid URL'],
    ['', true, 'not a valid URL'],
    ['https://', false, 'not a valid URL'],
  ])('refuses %s (allowPrivate %s): %s', (url, allowPrivate, reason) => {
    expect(refusedUrl(url, allowPrivate)).toContain(reason);
  });

  it('never repeats the URL, whose query may hold a token', () => {
    expect(refusedUrl('http://hooks.example.com/?token=s3cret', false)).not.toContain('s3cret');
    expect(refusedUrl('https://u:s3cret@hooks.example.com/', false)).not.toContain('s3cret');
  });
});

describe('WebhookTransport without a network', () => {
  const transport = new WebhookTransport({ ...DEFAULT_TRANSPORT, allowPrivate: false, resolve: () => Promise.reject(new Error('no DNS')) });
  afterAll(() => transport.close());

  it('refuses a URL before resolving it, and never throws', async () => {
    const result = await transport.send({ url: 'http://hooks.example.com/', headers: {}, body: '{}' });
    expect(result).toEqual({
      delivered: false,
      status: null,
      error: 'refused destination: only https: URLs are accepted',
      latencyMs: expect.any(Number),
    });
    expect(Number.isInteger(result.latencyMs)).toBe(true);
  });

  it('reports a failed DNS lookup without its message', async () => {
    const result = await transport.send({ url: 'https://hooks.example.com/', headers: {}, body: '{}' });
    expect(result).toMatchObject({ delivered: false, status: null, error: 'DNS lookup failed' });
  });

  it('reports a host that does not exist', async () => {
    const missing = Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.com'), { code: 'ENOTFOUND' });
    const t = new WebhookTransport({ ...DEFAULT_TRANSPORT, allowPrivate: false, resolve: () => Promise.reject(missing) });
    expect(await t.send({ url: 'https://hooks.example.com/', headers: {}, body: '{}' })).toMatchObject({ error: 'host not found' });
    t.close();
  });

  it('refuses a host with no address', async () => {
    const t = new WebhookTransport({ ...DEFAULT_TRANSPORT, allowPrivate: false, resolve: () => Promise.resolve([]) });
    expect(await t.send({ url: 'https://hooks.example.com/', headers: {}, body: '{}' })).toMatchObject({ error: 'host has no address' });
    t.close();
  });

  it('gives up on DNS that does not answer within the total timeout', async () => {
    const t = new WebhookTransport({ ...DEFAULT_TRANSPORT, totalTimeoutMs: 50, allowPrivate: false, resolve: () => new Promise(() => {}) });
    expect(await t.send({ url: 'https://hooks.example.com/', headers: {}, body: '{}' })).toMatchObject({
      delivered: false,
      error: 'timed out after 50 ms',
    });
    t.close();
  });

  it('fails sends after close', async () => {
    const t = new WebhookTransport({ ...DEFAULT_TRANSPORT, allowPrivate: true });
    t.close();
    expect(await t.send({ url: 'http://127.0.0.1:1/', headers: {}, body: '{}' })).toMatchObject({ error: 'transport closed' });
  });

  it('defaults to the contract: 5 s to connect, 10 s in all, 64 KiB of answer body', () => {
    expect(DEFAULT_TRANSPORT).toEqual({ connectTimeoutMs: 5000, totalTimeoutMs: 10000, maxResponseBytes: 65536 });
  });
});

describe('cloud metadata endpoints: refused even where private destinations are allowed (development)', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data',
    'https://169.254.170.2/v2/credentials', // ECS task credentials
    'https://169.254.170.23/v1/credentials', // EKS Pod Identity
    'http://169.254.1.1/hooks', // the whole link-local range
    'http://[fd00:ec2::254]/',
    'http://[fd00:ec2::23]/',
    'http://100.100.100.200/',
    // 169.254.169.254 in every IPv6 form that carries an IPv4 address
    'https://[::ffff:169.254.169.254]/', // IPv4-mapped
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::a9fe:a9fe]/', // NAT64
    'https://[64:ff9b::169.254.169.254]/',
    'https://[64:ff9b:1::a9fe:a9fe]/', // NAT64, local-use prefix
    'https://[2002:a9fe:a9fe::]/', // 6to4
    'https://[2002:a9fe:aa02::1]/', // 6to4 of 169.254.170.2
    'https://[::a9fe:a9fe]/', // IPv4-compatible
    'https://[::169.254.169.254]/',
    'https://[::ffff:0:a9fe:a9fe]/', // IPv4-translated
    'http://metadata.google.internal/',
    'http://metadata/',
  ])('%s', (url) => {
    expect(refusedUrl(url, true)).toMatch(/cloud metadata/);
    expect(refusedUrl(url, false)).not.toBeNull();
  });

  it.each(['169.254.170.2', '::ffff:169.254.170.23', '64:ff9b::a9fe:aa02', '2002:a9fe:a9fe::', 'fd00:ec2::23'])(
    'refuses the resolved address %s at send time too',
    (address) => {
      expect(metadataAddress(address)).toMatch(/cloud metadata/);
    },
  );

  it('lets other private destinations through when allowed', () => {
    expect(refusedUrl('http://127.0.0.1:8080/hooks', true)).toBeNull();
    expect(refusedUrl('http://10.1.2.3/hooks', true)).toBeNull();
    expect(refusedUrl('http://[64:ff9b::a01:203]/hooks', true)).toBeNull(); // NAT64 of 10.1.2.3
    expect(metadataAddress('2001:db8::a9fe:a9fe')).toBeNull(); // a v4-looking tail in plain IPv6 is not an IPv4 address
  });
});
