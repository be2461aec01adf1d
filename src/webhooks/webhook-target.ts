import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard of webhooks (docs/security.md): a webhook URL is the caller's, and a delivery is a
 * request the bridge makes from inside its network. So a target whose name resolves to any address
 * that is not public — loopback, private, link-local, carrier-grade NAT, multicast, reserved, or one
 * of those wrapped in IPv6 — is refused unless its host is listed in `RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS`.
 * The check runs at `POST /v1/runs` and again before every attempt, and the attempt connects to the
 * address the check saw, so a name that changes its answer in between (DNS rebinding) gains nothing.
 */

/** Ranges no webhook may reach unless allowed. */
const SPECIAL = new BlockList();
for (const [network, prefix] of [
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
] as const) {
  SPECIAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  SPECIAL.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** True when `address` (an IP) is not a public unicast address. */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL.check(address, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return SPECIAL.check(inner, 'ipv4');
  return SPECIAL.check(address, 'ipv6');
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
