import { type RedactionKeys, Redactor } from '../ors/client/redactor.js';
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

/** Cuts a run's secrets out of the text of what it writes. */
export interface RunDataRedactor {
  /** An event, or a run context: every string but those under the kept keys. */
  value<T>(value: T): T;
  /** An entry's detail: each section as {@link value} (a section's name, such as `tool`, is no field). */
  detail(detail: EventDetail | undefined): EventDetail | undefined;
}

/**
 * The redactor of a run's published and stored data (docs/security.md, "Secrets are never echoed"),
 * with the same rules as for errors; undefined when `secrets` hold no value, so a run without secrets
 * walks nothing.
 */
export function runDataRedactor(secrets: Record<string, unknown> | undefined): RunDataRedactor | undefined {
  if (secrets === undefined) return undefined;
  const redactor = new Redactor(secrets);
  if (redactor.empty) return undefined;
  const value = <T>(data: T): T => redactor.value(data, RUN_DATA_KEYS);
  return {
    value,
    detail: (detail) => {
      if (detail === undefined) return undefined;
      const sections = Object.entries(detail).map(([name, section]) => [name, value(section)] as const);
      const changed = sections.some(([name, section]) => section !== detail[name as keyof EventDetail]);
      return changed ? (Object.fromEntries(sections) as EventDetail) : detail;
    },
  };
}
