/**
 * Which hops may tell the router a client's address (`server.trustedProxies`). Behind a reverse proxy
 * every connection comes from the proxy, so the address is read from X-Forwarded-For, but only
 * through hops the operator trusts: walking from the connection's peer leftwards, the client is the
 * first address that is not a trusted proxy. Anything left of it was written by that client and is
 * ignored, so a client cannot choose its own address; with no trusted proxies the header is never read.
 */
import { BlockList, isIP } from 'node:net';

export interface ProxyTrust {
  /** True when `address` lies in one of the trusted ranges. */
  trusts(address: string): boolean;
}

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (one host); null for anything else. */
export function parseCidr(text: string): Cidr | null {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return null;
  // A zone (fe80::1%eth0) names an interface of this host, not a range.
  const version = address.includes('%') ? 0 : isIP(address);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family: version === 4 ? 'ipv4' : 'ipv6' };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
  return { address, prefix: Number(prefixText), family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Throws for a range parseCidr refuses (config validation reports those first, with file and line). */
export function createProxyTrust(cidrs: readonly string[]): ProxyTrust {
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`not an IP address range: ${text}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return {
    trusts(address) {
      const version = isIP(address);
      // BlockList also matches an IPv4-mapped IPv6 address (::ffff:10.0.0.1) against IPv4 ranges.
      return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * The client's address: the socket's `peer` unless it is a trusted proxy, in which case the
 * X-Forwarded-For entries are taken from the right while each hop so far is trusted. An entry that is
 * not an address ends the walk at the hop that sent it. Addresses come back as IPv4 when IPv4-mapped.
 */
export function clientAddress(peer: string | null, forwardedFor: string | undefined, trust: ProxyTrust): string | null {
  if (peer === null) return null;
  let client = plainAddress(peer);
  if (!forwardedFor || !trust.trusts(client)) return client;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]!);
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trust.trusts(hop)) break;
  }
  return client;
}

/** Trims, drops `[…]` around IPv6 and the port of `1.2.3.4:5678`, and unmaps `::ffff:1.2.3.4`. */
function plainAddress(text: string): string {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/**
 * The unit an address is counted in: an IPv4 address alone, an IPv6 address by its /64 (`2001:db8:1:2::/64`),
 * since one subscriber or host is usually handed a whole /64 and can change the low bits at will. Null (no
 * peer) and anything that is not an address are returned as they are.
 */
export function countingUnit(address: string | null): string | null {
  if (address === null || isIP(address) !== 6) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of a valid IPv6 address, lower case without leading zeros (`::` expanded, a trailing dotted quad as two groups). */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase().split('%')[0]!;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
