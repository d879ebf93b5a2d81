import { describe, expect, it } from 'vitest';
import { refusedRange } from '../../../src/platform/net/ip-ranges.js';
import { checkTarget, type Resolver } from '../../../src/platform/net/ssrf.js';

const publicOnly: Resolver = async () => [{ address: '93.184.215.14', family: 4 }];
const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud_metadata'],
    ['169.254.1.1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.10', 'documentation'],
    ['203.0.113.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud_metadata'],
    ['169.254.170.2', 'cloud_metadata'],
    ['100.100.100.200', 'cloud_metadata'],
    ['192.0.0.192', 'cloud_metadata'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['64:ff9b::a9fe:a9fe', 'cloud_metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:db8::1', 'documentation'],
    ['::127.0.0.1', 'reserved'],
    ['100::1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s as %s', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '192.169.0.1',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(refusedRange(address)).toBeUndefined();
  });
});

describe('checkTarget', () => {
  it('approves a public https target and returns the address to pin', async () => {
    const result = await checkTarget('https://hooks.example.com:8443/in?x=1', {
      allowPrivate: false,
      resolver: publicOnly,
    });
    expect(result).toMatchObject({ ok: true, address: '93.184.215.14', family: 4 });
    expect(result.ok && result.url.href).toBe('https://hooks.example.com:8443/in?x=1');
  });

  it('uses an IP literal as is, without resolving', async () => {
    const resolver: Resolver = async () => {
      throw new Error('must not resolve');
    };
    expect(await checkTarget('https://8.8.8.8/x', { allowPrivate: false, resolver })).toMatchObject({
      ok: true,
      address: '8.8.8.8',
      family: 4,
    });
    expect(
      await checkTarget('https://[2606:4700:4700::1111]/x', { allowPrivate: false, resolver }),
    ).toMatchObject({
      ok: true,
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0.0.0.0/',
    'https://10.0.0.5/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.1.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://[ff02::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:192.168.0.1]/',
  ])('refuses the literal %s', async (url) => {
    const result = await checkTarget(url, { allowPrivate: false, resolver: publicOnly });
    expect(result).toMatchObject({ ok: false, reason: 'blocked_address' });
  });

  it('refuses a host name that resolves to a private address', async () => {
    const result = await checkTarget('https://internal.example.com/', {
      allowPrivate: false,
      resolver: resolvesTo('10.0.0.7'),
    });
    expect(result).toEqual({ ok: false, reason: 'blocked_address', range: 'private' });
  });

  it('refuses when any one of several resolved addresses is refused', async () => {
    const result = await checkTarget('https://mixed.example.com/', {
      allowPrivate: false,
      resolver: resolvesTo('93.184.215.14', '::ffff:127.0.0.1'),
    });
    expect(result).toEqual({ ok: false, reason: 'blocked_address', range: 'loopback' });
  });

  it.each([
    'localhost',
    'api.localhost',
    'LOCALHOST.',
    'metadata.google.internal',
    'metadata.google.internal.',
  ])('refuses the host name %s before resolving it', async (host) => {
    const result = await checkTarget(`https://${host}/`, { allowPrivate: false, resolver: publicOnly });
    expect(result).toEqual({ ok: false, reason: 'blocked_hostname' });
  });

  it('requires https', async () => {
    expect(
      await checkTarget('http://hooks.example.com/', { allowPrivate: false, resolver: publicOnly }),
    ).toEqual({
      ok: false,
      reason: 'https_required',
    });
  });

  it('lets plain http through with allowPlainHttp (the agent tools), every address rule still applying', async () => {
    const options = { allowPrivate: false, allowPlainHttp: true };
    expect(
      await checkTarget('http://news.example.com/a', { ...options, resolver: publicOnly }),
    ).toMatchObject({
      ok: true,
      address: '93.184.215.14',
    });
    expect(
      await checkTarget('http://intranet.example/', { ...options, resolver: resolvesTo('10.0.0.7') }),
    ).toEqual({
      ok: false,
      reason: 'blocked_address',
      range: 'private',
    });
    expect(await checkTarget('http://127.0.0.1:8080/', options)).toEqual({
      ok: false,
      reason: 'blocked_address',
      range: 'loopback',
    });
    expect(await checkTarget('http://localhost/', options)).toEqual({
      ok: false,
      reason: 'blocked_hostname',
    });
    expect(await checkTarget('ftp://news.example.com/', { ...options, resolver: publicOnly })).toEqual({
      ok: false,
      reason: 'unsupported_scheme',
    });
  });

  it.each(['ftp://hooks.example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://x/'])(
    'refuses the scheme of %s',
    async (url) => {
      expect(await checkTarget(url, { allowPrivate: true, resolver: publicOnly })).toEqual({
        ok: false,
        reason: 'unsupported_scheme',
      });
    },
  );

  it.each([
    'https://user:pass@hooks.example.com/',
    'https://user@hooks.example.com/',
    'https://:pw@hooks.example.com/',
  ])('refuses userinfo in %s, even with allowPrivate', async (url) => {
    expect(await checkTarget(url, { allowPrivate: true, resolver: publicOnly })).toEqual({
      ok: false,
      reason: 'userinfo_not_allowed',
    });
  });

  it('refuses unparsable and overlong URLs', async () => {
    expect(await checkTarget('not a url', { allowPrivate: false })).toEqual({
      ok: false,
      reason: 'invalid_url',
    });
    const long = `https://hooks.example.com/${'a'.repeat(3000)}`;
    expect(await checkTarget(long, { allowPrivate: false, resolver: publicOnly })).toEqual({
      ok: false,
      reason: 'url_too_long',
    });
  });

  it('reports resolution failures, empty answers and non-IP answers as dns_failed', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const never: Resolver = () => new Promise(() => {});
    const opts = { allowPrivate: false };
    expect(await checkTarget('https://a.example.com/', { ...opts, resolver: failing })).toMatchObject({
      reason: 'dns_failed',
    });
    expect(await checkTarget('https://a.example.com/', { ...opts, resolver: resolvesTo() })).toMatchObject({
      reason: 'dns_failed',
    });
    expect(
      await checkTarget('https://a.example.com/', { ...opts, resolver: resolvesTo('evil') }),
    ).toMatchObject({
      reason: 'dns_failed',
    });
    expect(
      await checkTarget('https://a.example.com/', { ...opts, resolver: never, resolveTimeoutMs: 20 }),
    ).toMatchObject({ reason: 'dns_failed' });
  });

  it('with allowPrivate, lets plain http, loopback and localhost through', async () => {
    expect(await checkTarget('http://127.0.0.1:8080/hook', { allowPrivate: true })).toMatchObject({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    expect(
      await checkTarget('http://localhost:9/', {
        allowPrivate: true,
        resolver: resolvesTo('::1', '127.0.0.1'),
      }),
    ).toMatchObject({ ok: true, address: '::1', family: 6 });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud_metadata'],
    ['http://169.254.170.2/v2/credentials', 'cloud_metadata'],
    ['http://100.100.100.200/latest/meta-data/', 'cloud_metadata'],
    ['http://192.0.0.192/', 'cloud_metadata'],
    ['http://[fd00:ec2::254]/', 'cloud_metadata'],
    ['http://[::ffff:169.254.169.254]/', 'cloud_metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'cloud_metadata'],
    ['http://[2002:a9fe:a9fe::]/', 'cloud_metadata'],
    ['http://169.254.1.1/', 'link_local'],
    ['http://[fe80::1]/', 'link_local'],
  ])('with allowPrivate, still refuses the metadata or link-local address %s', async (url, range) => {
    expect(await checkTarget(url, { allowPrivate: true, resolver: publicOnly })).toEqual({
      ok: false,
      reason: 'blocked_address',
      range,
    });
  });

  it('with allowPrivate, still refuses a name resolving to a metadata address, and metadata.google.internal', async () => {
    expect(
      await checkTarget('http://instance-data.example/', {
        allowPrivate: true,
        resolver: resolvesTo('10.0.0.1', '169.254.169.254'),
      }),
    ).toEqual({ ok: false, reason: 'blocked_address', range: 'cloud_metadata' });
    expect(
      await checkTarget('http://Metadata.Google.Internal./computeMetadata/v1/', {
        allowPrivate: true,
        resolver: resolvesTo('10.0.0.1'),
      }),
    ).toEqual({ ok: false, reason: 'blocked_hostname' });
  });

  it('resolves with the system resolver by default', async () => {
    // localhost resolves from /etc/hosts, so this needs no network.
    const result = await checkTarget('http://localhost/', { allowPrivate: true });
    if (!result.ok) throw new Error(`localhost refused: ${result.reason}`);
    expect(['127.0.0.1', '::1']).toContain(result.address);
  });
});
