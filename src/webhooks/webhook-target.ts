import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard of webhooks (docs/security.md): a webhook URL is the caller's, and a delivery is a
 * request the bridge makes from inside its network. So a target whose name resolves to any address
 * that is not public — loopback, private, link-local, carrier-grade NAT, multicast, reserved, IPv6
 * outside global unicast, or IPv4 carried or tunnelled in IPv6 — is refused unless its host is listed in `RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS`.
 * The check runs at `POST /v1/runs` and again before every attempt, and the attempt connects to the
 * address the check saw, so a name that changes its answer in between (DNS rebinding) gains nothing.
 */

/** IPv4 ranges no webhook may reach unless allowed: all but public unicast. */
const SPECIAL_IPV4: ReadonlyArray<readonly [network: string, prefix: number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address that a connection reaches: IPv4-mapped
 * (`::ffff:0:0/96`, how a dual-stack socket writes IPv4) and NAT64's well-known prefix
 * (`64:ff9b::/96`, which DNS64 gives public IPv4 hosts in IPv6-only networks). An address of these
 * is judged by the IPv4 it carries, however it is written (`BlockList` compares bits, not text).
 */
const CARRIES_IPV4 = ['::ffff:', '64:ff9b::'] as const;

const CARRIER = new BlockList();
const SPECIAL_CARRIED = new BlockList();
for (const carrier of CARRIES_IPV4) {
  CARRIER.addSubnet(`${carrier}0.0.0.0`, 96, 'ipv6');
  for (const [network, prefix] of SPECIAL_IPV4) SPECIAL_CARRIED.addSubnet(`${carrier}${network}`, 96 + prefix, 'ipv6');
}

const SPECIAL = new BlockList();
for (const [network, prefix] of SPECIAL_IPV4) SPECIAL.addSubnet(network, prefix, 'ipv4');

/**
 * Public IPv6 is global unicast, `2000::/3`, and nothing outside it: that leaves out at once the
 * unspecified and loopback addresses, IPv4-compatible (`::/96`) and IPv4-translated
 * (`::ffff:0:0:0/96`) ones, local-use NAT64 (`64:ff9b:1::/48`), discard (`100::/64`), unique-local,
 * link- and site-local, and multicast.
 */
const GLOBAL_IPV6 = new BlockList();
GLOBAL_IPV6.addSubnet('2000::', 3, 'ipv6');

/**
 * Inside `2000::/3`, what is not a public host: 6to4 (`2002::/16`) and Teredo (`2001::/32`) tunnel
 * IPv4 through relays the bridge cannot see (a 6to4 address names any IPv4 it likes, a private one
 * included), and documentation addresses (`2001:db8::/32`) name no one.
 */
const SPECIAL_GLOBAL_IPV6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
] as const) {
  SPECIAL_GLOBAL_IPV6.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP) is not a public unicast address. */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL.check(address, 'ipv4');
  if (family !== 6) return true;
  if (CARRIER.check(address, 'ipv6')) return SPECIAL_CARRIED.check(address, 'ipv6');
  return !GLOBAL_IPV6.check(address, 'ipv6') || SPECIAL_GLOBAL_IPV6.check(address, 'ipv6');
}

/** Resolves a host name to every address it has. */
export type HostLookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The system resolver (what `node:http` itself would use). */
export const systemLookup: HostLookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** A webhook target that may not be called, or whose name does not resolve. */
export class WebhookTargetError extends Error {
  constructor(
    message: string,
    /** `webhook_refused` (the guard said no: never retried) or `webhook_unresolved` (DNS failed: may pass later). */
    readonly code: 'webhook_refused' | 'webhook_unresolved',
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Where an attempt connects: the URL, and the address its host resolved to when it was checked. */
export interface WebhookTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Checks `url` against the guard and resolves it: its host, when listed in `allowedHosts` (names
 * or IPs, compared without case), may resolve anywhere; any other host must resolve only to public
 * addresses. Throws {@link WebhookTargetError}.
 */
export async function resolveWebhookTarget(
  url: string,
  allowedHosts: readonly string[],
  lookup: HostLookup = systemLookup,
): Promise<WebhookTarget> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = allowedHosts.some((entry) => entry.toLowerCase().replace(/^\[|\]$/g, '') === host);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new WebhookTargetError(`The webhook host "${host}" does not resolve (${reason}).`, 'webhook_unresolved');
    }
    if (addresses.length === 0) {
      throw new WebhookTargetError(`The webhook host "${host}" has no address.`, 'webhook_unresolved');
    }
  }
  if (!allowed) {
    const special = addresses.find(({ address }) => isSpecialAddress(address));
    if (special) {
      throw new WebhookTargetError(
        `The webhook host "${host}" resolves to ${special.address}, a loopback, private, link-local or reserved address; ` +
          'webhooks are only sent to public addresses unless the host is listed in RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS.',
        'webhook_refused',
      );
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { url: parsed, address: first.address, family: first.family === 6 ? 6 : 4 };
}
