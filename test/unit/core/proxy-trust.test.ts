import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddress, countingUnit, createProxyTrust, parseCidr } from '../../../src/core/proxy-trust.js';

const trust = createProxyTrust(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);

describe('parseCidr', () => {
  it('reads IPv4 and IPv6 ranges and bare addresses', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr(' 2001:db8::/32 ')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('127.0.0.1')).toEqual({ address: '127.0.0.1', prefix: 32, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseCidr('0.0.0.0/0')).toEqual({ address: '0.0.0.0', prefix: 0, family: 'ipv4' });
  });

  it('refuses what is not a range', () => {
    for (const text of ['', 'localhost', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0/8', '10.0.0.0/-1', '10.0.0.0/ 8', '256.0.0.1', 'fe80::1%eth0/64']) {
      expect(parseCidr(text), text).toBeNull();
    }
  });

  it('accepts every IPv4 address with every prefix and nothing past the width', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 40 }), (address, prefix) => {
        expect(parseCidr(`${address}/${prefix}`) !== null).toBe(prefix <= 32);
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 140 }), (address, prefix) => {
        expect(parseCidr(`${address}/${prefix}`) !== null).toBe(prefix <= 128);
      }),
    );
  });
});

describe('clientAddress', () => {
  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', '10.1.1.1, 198.51.100.1', trust)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', undefined, trust)).toBe('203.0.113.9');
  });

  it('walks X-Forwarded-For through trusted hops only, to the first address that is not one', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.7', trust)).toBe('198.51.100.7');
    // The client wrote "1.2.3.4" itself; the proxies appended what they saw.
    expect(clientAddress('10.0.0.2', '1.2.3.4, 198.51.100.7, 192.168.1.7', trust)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:10.0.0.2', '2001:DB8::5', trust)).toBe('2001:db8::5');
    expect(clientAddress('fd00::1', '[2001:db8::6]:443, 10.9.9.9', trust)).toBe('2001:db8::6');
    expect(clientAddress('10.0.0.2', '198.51.100.8:5555', trust)).toBe('198.51.100.8');
  });

  it('stops at an entry that is not an address, and takes the leftmost when every hop is trusted', () => {
    expect(clientAddress('10.0.0.2', 'garbage, 10.0.0.3', trust)).toBe('10.0.0.3');
    expect(clientAddress('10.0.0.2', '10.0.0.4, 10.0.0.3', trust)).toBe('10.0.0.4');
    expect(clientAddress('10.0.0.2', '', trust)).toBe('10.0.0.2');
  });

  it('never reads the header with no trusted proxies', () => {
    const none = createProxyTrust([]);
    fc.assert(
      fc.property(fc.ipV4(), fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), { maxLength: 6 }), (peer, hops) => {
        expect(clientAddress(peer, hops.join(', '), none)).toBe(peer);
      }),
    );
  });

  it('never answers an address a client could choose: the result is the peer or an entry no trusted hop vouches past', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.ipV4(), fc.constantFrom('10.0.0.1', '10.2.3.4', 'fd00::9')), { minLength: 1, maxLength: 6 }),
        fc.array(fc.oneof(fc.ipV4(), fc.string({ maxLength: 8 })), { maxLength: 3 }),
        (chain, forged) => {
          // `chain` is what real hops saw (peer last); `forged` is whatever the client wrote in front.
          const peer = chain.at(-1)!;
          const header = [...forged, ...chain.slice(0, -1)].join(', ');
          const client = clientAddress(peer, header, trust);
          // The first untrusted address from the right of the real chain, if there is one, wins.
          const firstUntrusted = [...chain].reverse().find((address) => !trust.trusts(address));
          if (firstUntrusted !== undefined) expect(client).toBe(firstUntrusted);
          else expect(chain.includes(client!) || forged.includes(client!)).toBe(true);
        },
      ),
    );
  });

  it('throws on a range it cannot read', () => {
    expect(() => createProxyTrust(['10.0.0.0/99'])).toThrow(/10\.0\.0\.0\/99/);
  });
});

describe('countingUnit', () => {
  it('keeps an IPv4 address whole and cuts an IPv6 address to its /64, whatever its spelling', () => {
    expect(countingUnit('203.0.113.9')).toBe('203.0.113.9');
    expect(countingUnit(null)).toBeNull();
    expect(countingUnit('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(countingUnit('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(countingUnit('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(countingUnit('::1')).toBe('0:0:0:0::/64');
    expect(countingUnit('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(countingUnit('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(countingUnit('1:2:3:4:5:6:1.2.3.4')).toBe('1:2:3:4::/64');
  });

  it('gives two addresses one unit exactly when their first 64 bits agree', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const address = fc.array(group, { minLength: 8, maxLength: 8 });
    /** The spellings a client or proxy may send: full, zero-padded upper case, or with the longest zero run as `::`. */
    const spell = (groups: number[], style: number) => {
      if (style === 0) return groups.map((g) => g.toString(16)).join(':');
      if (style === 1) return groups.map((g) => g.toString(16).padStart(4, '0').toUpperCase()).join(':');
      return new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname.slice(1, -1);
    };
    fc.assert(
      fc.property(address, address, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.boolean(), (a, b, styleA, styleB, sharePrefix) => {
        const other = sharePrefix ? [...a.slice(0, 4), ...b.slice(4)] : b;
        const same = a.slice(0, 4).every((g, i) => g === other[i]);
        expect(countingUnit(spell(a, styleA)) === countingUnit(spell(other, styleB))).toBe(same);
      }),
    );
  });
});
