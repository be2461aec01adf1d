/**
 * How much of one answer of a model server the bridge reads (docs/security.md, "What a model server
 * can send"): the transport under the vendor SDKs counts the bytes before any SDK sees them. The
 * settings of the same names override them (`RUNBRIDGE_MODEL_MAX_EVENT_BYTES`,
 * `RUNBRIDGE_MODEL_MAX_ANSWER_BYTES`, `RUNBRIDGE_MODEL_MAX_ERROR_BYTES`); these are their defaults,
 * written once.
 */
export interface ModelAnswerCaps {
  /** Bytes of one event of a model's stream (so also of one line); past it the run fails `model_error`. */
  maxEventBytes: number;
  /** Bytes of one answer, a whole turn's stream; past it the run fails `model_error`. */
  maxAnswerBytes: number;
  /** Bytes of an error answer's body read for its message; the rest is not read. */
  maxErrorBytes: number;
}

/** The caps when nothing overrides them: far above what any model sends in one event, turn or error. */
export const MODEL_ANSWER_CAPS: Readonly<ModelAnswerCaps> = {
  maxEventBytes: 8 * 1024 * 1024,
  maxAnswerBytes: 256 * 1024 * 1024,
  maxErrorBytes: 16 * 1024,
};
