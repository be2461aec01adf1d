import { A2aError, RPC_CODES } from './a2a-error.js';

/** The A2A protocol versions the endpoint speaks. */
export const A2A_VERSIONS = ['1.0', '0.3'] as const;
export type A2aVersion = (typeof A2A_VERSIONS)[number];

/**
 * The version a request asks for (A2A v1.0 §3.6): its `A2A-Version` header, else its `A2A-Version`
 * query parameter, read as `major.minor` (a patch is ignored: `1.0.1` is 1.0). A missing or empty value
 * is 0.3, as the spec asks, since v0.3 clients send none. Any other version is the `-32009` error.
 */
export function requestedVersion(header: string, query: unknown): A2aVersion {
  const asked = (header || (typeof query === 'string' ? query : '')).trim();
  if (asked === '') return '0.3';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(asked);
  const version = match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  if (version === '1.0' || version === '0.3') return version;
  throw new A2aError(
    RPC_CODES.versionNotSupported,
    `A2A-Version "${asked.slice(0, 32)}" is not supported here: send "1.0", or "0.3" (or no A2A-Version at all).`,
    { code: 'protocol_version_unsupported', status: 200 },
  );
}
