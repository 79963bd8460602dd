import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ServiceError } from '../errors/service-error.js';

// Where a webhook may be sent: an https URL whose host resolves only to public addresses. Checked when an endpoint is
// written (a 400 naming the field) and again before every attempt, on the addresses the attempt then connects to (a
// name that resolved to a public address at creation may resolve to 169.254.169.254 later: DNS rebinding), so no
// webhook reaches into the operator's network. `allowLoopback` (a test's service config) lets http and loopback
// addresses through, nothing else.

/** Resolves a host name to its addresses, as `dns.promises.lookup(host, {all: true})` does (injected in tests). */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface AddressPolicy {
  lookup: HostLookup;
  /** http URLs and loopback addresses allowed (tests against a receiver on 127.0.0.1). Default false. */
  allowLoopback: boolean;
}

/** The system's resolver: every address of the host, IPv4 and IPv6. */
export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

// One list per family: a BlockList checks an IPv4 address against its IPv6 rules too (as ::ffff:a.b.c.d).
const loopback4 = new BlockList();
loopback4.addSubnet('127.0.0.0', 8, 'ipv4');
const loopback6 = new BlockList();
loopback6.addAddress('::1', 'ipv6');

/** Addresses no webhook may reach: private, loopback, link-local, shared, reserved, multicast, and their IPv6 forms. */
const refused4 = new BlockList();
const refused6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7],
  ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) refused6.addSubnet(net, bits, 'ipv6');

/** True when an attempt may connect to `address` under `policy`. */
export function addressAllowed(address: string, policy: Pick<AddressPolicy, 'allowLoopback'>): boolean {
  if (isIP(address) === 4) return (policy.allowLoopback && loopback4.check(address, 'ipv4')) || !refused4.check(address, 'ipv4');
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 one it is; in hex, refused with the rest
  // of ::ffff:0:0/96.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return addressAllowed(mapped, policy);
  if (policy.allowLoopback && loopback6.check(address, 'ipv6')) return true;
  return !refused6.check(address, 'ipv6');
}

/** Where an attempt connects: the URL and the one address checked for it (the connection is pinned to that address). */
export interface CheckedTarget {
  url: URL;
  /** The URL's host name, an IPv6 address without its brackets. */
  host: string;
  address: string;
  family: 4 | 6;
}

const invalid = (field: string, message: string): ServiceError => new ServiceError('invalid_webhook', `${field}: ${message}`);

/**
 * Checks a webhook URL and resolves its host under `policy`: https (http only with `allowLoopback`), no credentials in
 * it, every address the host resolves to allowed. Answers the first address, to which the attempt connects.
 * @throws ServiceError `invalid_webhook` naming `field` (`url`) when the URL or any of its addresses is refused.
 * @example await checkWebhookUrl('https://hooks.example.com/svc', policy, 'url') // → { url, host: 'hooks.example.com', address: '93.184.216.34', family: 4 }
 */
export async function checkWebhookUrl(text: string, policy: AddressPolicy, field = 'url'): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback)) throw invalid(field, 'must be an https URL');
  if (url.username !== '' || url.password !== '') throw invalid(field, 'must not carry a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await policy.lookup(host);
    } catch {
      throw invalid(field, `the host "${host}" does not resolve`);
    }
  }
  if (addresses.length === 0) throw invalid(field, `the host "${host}" does not resolve`);
  const bad = addresses.find((a) => !addressAllowed(a.address, policy));
  if (bad !== undefined) {
    throw invalid(field, `the host "${host}" resolves to ${bad.address}, a private, loopback, link-local or reserved address`);
  }
  const first = addresses[0]!;
  return { url, host, address: first.address, family: first.family === 6 ? 6 : 4 };
}
