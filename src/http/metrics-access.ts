import { UnauthorizedError } from '../errors.js';
import { Authenticator } from './authenticate.js';

/**
 * Who may read `GET /metrics` (docs/security.md): the scraper, with `RUNBRIDGE_METRICS_TOKEN`, and no
 * API key — a tenant would read what every other key's runs did (their environments, models, errors).
 * With neither keys nor the token the bridge listens on loopback only and `/metrics` is open, like the API.
 */
export class MetricsAccess {
  /** The token's check (constant time, as the keys'), or undefined without one. */
  readonly #token: Authenticator | undefined;
  /** API keys without a token: no one scrapes. */
  readonly #closed: boolean;

  constructor(token: string | undefined, apiKeys: readonly string[]) {
    this.#token = token === undefined ? undefined : new Authenticator([token]);
    this.#closed = token === undefined && apiKeys.length > 0;
  }

  /** Passes the scraper's `Authorization` header value; 401 `unauthorized` for any other. */
  check(header: string | undefined): void {
    if (this.#closed) {
      throw new UnauthorizedError(
        'GET /metrics takes RUNBRIDGE_METRICS_TOKEN, a token for the scraper alone, and none is set: API keys do ' +
          "not read metrics, which tell of every key's runs. Set RUNBRIDGE_METRICS_TOKEN and scrape with it.",
      );
    }
    try {
      this.#token?.authenticate(header);
    } catch {
      throw new UnauthorizedError(
        'GET /metrics takes "Authorization: Bearer <RUNBRIDGE_METRICS_TOKEN>", the scraper\'s token; an API key is not one.',
      );
    }
  }
}

/** What stops start-up about the metrics token: one that is also an API key would let that key's tenant scrape. */
export function metricsTokenProblems(token: string | undefined, apiKeys: readonly string[]): string[] {
  if (token === undefined || !apiKeys.includes(token)) return [];
  return [
    "RUNBRIDGE_METRICS_TOKEN is also one of RUNBRIDGE_API_KEYS: the scraper's token must be its own, or that key's " +
      "tenant reads what every key's runs did. Make a new one (openssl rand -hex 32).",
  ];
}
