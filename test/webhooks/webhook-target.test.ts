import { describe, expect, it } from 'vitest';
import { MemoryWebhookOutbox } from '../../src/store/memory/memory-webhook-outbox.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import {
  type HostLookup,
  isSpecialAddress,
  resolveWebhookTarget,
  WebhookTargetError,
} from '../../src/webhooks/webhook-target.js';
import { eventually } from '../support/eventually.js';

/**
 * The SSRF guard of webhooks (docs/security.md): a target is judged by every address its name
 * resolves to, IPv6 wrappings of IPv4 included; allowed hosts pass; a name that resolves somewhere
 * private by the time of an attempt fails that delivery for good.
 */

const resolvesTo =
  (...addresses: string[]): HostLookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('the webhook target guard', () => {
  it('tells public addresses from loopback, private, link-local, CGNAT, reserved and wrapped ones', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isSpecialAddress(address), address).toBe(false);
    }
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::10.0.0.1',
      'not an address',
    ]) {
      expect(isSpecialAddress(address), address).toBe(true);
    }
  });

  it('judges IPv4 carried in IPv6 by that IPv4 in every spelling, and refuses the prefixes that tunnel or translate it', () => {
    // Mapped (::ffff:0:0/96) and NAT64's well-known prefix (64:ff9b::/96) reach the IPv4 they carry:
    // a public one passes, whichever way the address is written.
    for (const address of ['::ffff:8.8.8.8', '0:0:0:0:0:ffff:808:808', '64:ff9b::8.8.8.8', '64:ff9b:0:0:0:0:808:808']) {
      expect(isSpecialAddress(address), address).toBe(false);
    }
    for (const address of [
      // Mapped and NAT64 around a private IPv4, in the spellings a hand-written pattern misses.
      '0:0:0:0:0:ffff:7f00:1',
      '0::ffff:7f00:1',
      '::FFFF:7F00:0001',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:0:0:0:0:a00:1',
      '64:FF9B::A9FE:A9FE',
      // IPv4-compatible (::/96), deprecated: whatever it carries.
      '::127.0.0.1',
      '::7f00:1',
      '::8.8.8.8',
      '::ffff:0:808:808',
      // Local-use NAT64 (64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32): where they lead
      // depends on relays and translators the bridge cannot see.
      '64:ff9b:1::a00:1',
      '64:ff9b:1:ffff::808:808',
      '2002:7f00:1::1',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
      // Outside global unicast (2000::/3) altogether.
      '64:ff9b:2::1',
      '::1:0:0:1',
      '100::1',
      'fec0::1',
    ]) {
      expect(isSpecialAddress(address), address).toBe(true);
    }
    // Global unicast beside those prefixes is public.
    for (const address of ['2001:4860:4860::8888', '2003::1', '2a00:1450:4001::1']) {
      expect(isSpecialAddress(address), address).toBe(false);
    }
  });

  it('refuses a name when any of its addresses is private, and pins the one it checked', async () => {
    await expect(
      resolveWebhookTarget('https://hooks.example.com/x', [], resolvesTo('93.184.216.34', '10.0.0.7')),
    ).rejects.toMatchObject({ code: 'webhook_refused' });
    const target = await resolveWebhookTarget('https://hooks.example.com/x', [], resolvesTo('93.184.216.34'));
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(target.url.hostname).toBe('hooks.example.com');
  });

  it('lets allowed hosts through, by name or address, in any case', async () => {
    await expect(
      resolveWebhookTarget('http://Receiver.internal:8080/', ['receiver.INTERNAL'], resolvesTo('10.0.0.7')),
    ).resolves.toMatchObject({ address: '10.0.0.7' });
    await expect(resolveWebhookTarget('http://[::1]:9/', ['::1'])).resolves.toMatchObject({
      address: '::1',
      family: 6,
    });
  });

  it('says a name that does not resolve is unresolved, not refused', async () => {
    const failing: HostLookup = async () => {
      throw new Error('getaddrinfo ENOTFOUND');
    };
    const error = await resolveWebhookTarget('https://nowhere.example/', [], failing).catch((caught) => caught);
    expect(error).toBeInstanceOf(WebhookTargetError);
    expect(error.code).toBe('webhook_unresolved');
  });

  it('fails a delivery for good, without another attempt, when its name now resolves somewhere private', async () => {
    const outbox = new MemoryWebhookOutbox(60_000);
    let lookups = 0;
    const dispatcher = new WebhookDispatcher({
      outbox,
      settings: {
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        allowedHosts: [],
        timeoutMs: 1000,
        maxAttempts: 5,
        retryMs: 10,
        concurrency: 1,
        concurrencyPerKey: 1,
        breakerFailures: 5,
        breakerMs: 30_000,
        pollMs: 10,
      },
      log: silentLogger,
      lookup: async () => {
        lookups++;
        return [{ address: '192.168.0.10', family: 4 }];
      },
    });
    try {
      await outbox.add({
        id: 'msg_run_x_7',
        runId: 'run_x',
        owner: 'local',
        url: 'https://rebinding.example/hook',
        event: 'run.completed',
        seq: 7,
        body: '{}',
        status: 'pending',
        attempts: 0,
        lastStatus: null,
        lastError: null,
        nextAttemptAt: 0,
        deliveredAt: null,
      });
      const state = await eventually(async () => {
        const deliveries = await dispatcher.deliveries('run_x');
        return deliveries[0]?.status !== 'pending' && deliveries;
      }, 'the delivery attempted');
      expect(state[0]).toMatchObject({ status: 'failed', attempts: 1, last_status: null });
      expect(state[0]?.last_error).toContain('192.168.0.10');
      expect(lookups).toBe(1);
    } finally {
      await dispatcher.stop(0);
    }
  });
});
