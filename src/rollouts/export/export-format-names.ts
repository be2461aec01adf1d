/**
 * The names of the export formats, as data without the exporters: the route declarations
 * (`src/http/routes/`) list them, and what they reach must load nothing of Node (docs/architecture.md).
 */

/** The formats `runbridge rollout export` writes (`docs/trajectory.md`, "Export"). */
export const EXPORT_FORMATS = ['openai-chat', 'verifiers', 'grpo'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a service batch's records stream as (`GET /v1/rollouts/:id/records?format=`): the records themselves, or an export's rows. */
export const RECORD_FORMATS = ['records', ...EXPORT_FORMATS] as const;
export type RecordFormat = (typeof RECORD_FORMATS)[number];
