import { REDACTED, type RedactionKeys, Redactor } from '../ors/client/redactor.js';
import type { EventDetail } from '../protocol/event-detail.js';

/**
 * The keys of run events, entry details and the run context whose values hold no text a tool, an
 * environment or a model wrote — ids that tie events together, names, the protocol's own words, what
 * the caller configured, opaque bytes — and so are kept: a short secret standing alone in
 * `call_1` must not cut the call's id. Under `arguments` and `metadata`, data through and through,
 * every string is redacted whatever its key.
 */
const RUN_DATA_KEYS: RedactionKeys = {
  kept: new Set([
    'event',
    'run_id',
    'tool_call_id',
    'approval_id',
    'message_id',
    'decision_id',
    'id',
    'env',
    'model',
    'task',
    'tool',
    'tool_name',
    'name',
    'role',
    'type',
    'finish_reason',
    'raw_finish_reason',
    'stop_reason',
    'code',
    'by',
    'decision',
    'on_timeout',
    'detail',
    'reward_reduction',
    'sampling',
    'input_schema',
    'provider_data',
    'token_data',
    'mime_type',
    'data',
    'url',
  ]),
  data: new Set(['arguments', 'metadata']),
};

/** Cuts a run's secrets, and the bridge's own, out of the text of what it writes. */
export interface RunDataRedactor {
  /** An event, or a run context: every string but those under the kept keys (the bridge's secrets: every string). */
  value<T>(value: T): T;
  /** An entry's detail: each section as {@link value} (a section's name, such as `tool`, is no field). */
  detail(detail: EventDetail | undefined): EventDetail | undefined;
  /** One text, whole: what is cut before it is written must be redacted first, or a secret survives in part. */
  text(text: string): string;
  /** A fresh {@link StreamRedactor} for the pieces of one model turn. */
  streams(): StreamRedactor;
}

/**
 * The pieces of texts that stream (a turn's text, its reasoning, each call's arguments), redacted
 * across pieces: a server may spell a secret out a few characters at a time, which no piece holds
 * whole. The end of a piece that may be the beginning of a secret is held back until the next piece
 * of the same text (or its end) says whether it is.
 */
export interface StreamRedactor {
  /** What to publish of text `key` now that `piece` came: redacted, less what is held back (may be empty). */
  push(key: string, piece: string): string;
  /**
   * What is held back of text `key`, now that it is over: as it is, but for the beginning of a secret
   * 8 characters or longer, which is redacted (the server may have stopped in the middle of one).
   */
  end(key: string): string;
}

/**
 * A value of the bridge's own this short is no secret worth the name (an unset key's stand-in, such as
 * `unused`), and would cut every word it stands in: only longer ones are redacted.
 */
const BRIDGE_SECRET_MIN_CHARS = 8;

/**
 * The redactor of the bridge's own secrets, for whatever else answers with a server's words (the HTTP
 * errors of routes that ask the ORS server); only values of 8 characters or more count.
 */
export function bridgeSecretRedactor(bridgeSecrets: readonly string[]): Redactor {
  return new Redactor(bridgeSecrets.filter((secret) => secret.length >= BRIDGE_SECRET_MIN_CHARS));
}

/**
 * The redactor of a run's published and stored data (docs/security.md, "Secrets are never echoed"):
 * the run's `secrets` with the same rules as for errors, and the bridge's own (`bridgeSecrets`: its
 * API keys, provider keys, webhook secret, metrics token) in every string whatever its key — nothing
 * of the run needs them, and they are long. Undefined when neither holds a value, so such a run walks
 * nothing.
 */
export function runDataRedactor(
  secrets: Record<string, unknown> | undefined,
  bridgeSecrets: readonly string[] = [],
): RunDataRedactor | undefined {
  const run = new Redactor(secrets);
  const bridge = bridgeSecretRedactor(bridgeSecrets);
  if (run.empty && bridge.empty) return undefined;
  const value = <T>(data: T): T => {
    const kept = run.empty ? data : run.value(data, RUN_DATA_KEYS);
    return bridge.empty ? kept : bridge.value(kept);
  };
  const text = (data: string): string => bridge.text(run.text(data));
  const heldBack = (data: string): number => Math.max(run.heldBack(data), bridge.heldBack(data));
  return {
    value,
    detail: (detail) => {
      if (detail === undefined) return undefined;
      const sections = Object.entries(detail).map(([name, section]) => [name, value(section)] as const);
      const changed = sections.some(([name, section]) => section !== detail[name as keyof EventDetail]);
      return changed ? (Object.fromEntries(sections) as EventDetail) : detail;
    },
    text,
    streams: () => {
      const held = new Map<string, string>();
      return {
        push(key, piece) {
          const clean = text((held.get(key) ?? '') + piece);
          const keep = heldBack(clean);
          held.set(key, clean.slice(clean.length - keep));
          return clean.slice(0, clean.length - keep);
        },
        end(key) {
          const rest = held.get(key) ?? '';
          held.delete(key);
          return rest.length >= BRIDGE_SECRET_MIN_CHARS ? REDACTED : rest;
        },
      };
    },
  };
}
