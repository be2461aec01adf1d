import type { TrajectoryRecord, TrajectoryStep } from '../trajectory-schema.js';

/**
 * The token data of one episode, as the model server returned it per turn (vLLM `return_token_ids`
 * and `logprobs`), checked and, where the turns line up, laid end to end — one sequence, or several
 * where a turn says it began a new one (`new_sequence`, docs/trajectory.md "Token data").
 */

/**
 * What the check found:
 * - `none`: no turn carries token ids (the server returned none, or the episode has no turn);
 * - `ok`: every turn has prompt and completion ids, and each turn's prompt ids begin with the previous
 *   turn's prompt and completion ids, unless the turn says it began a new sequence — the episode is
 *   one growing sequence, or several;
 * - `incomplete`: some turn lacks prompt or completion ids, or has a logprob count that differs from its ids;
 * - `mismatch`: all ids are there, but some turn's prompt does not extend the previous turn's prompt and
 *   completion, and the turn does not say it began a new sequence (typically a chat template that drops
 *   earlier reasoning, or text that tokenizes differently once it is part of a longer prompt).
 */
export type TokenCheck = 'none' | 'ok' | 'incomplete' | 'mismatch';

/** One turn's ids and masks in the layout of verifiers' `TrajectoryStepTokens`. */
export interface StepTokens {
  prompt_ids: number[];
  /** 0 for every prompt token: nothing the model generated. */
  prompt_mask: number[];
  completion_ids: number[];
  /** 1 for every completion token: all of it was sampled from the model. */
  completion_mask: number[];
  completion_logprobs: number[];
  overlong_prompt: boolean;
  /** The turn stopped at the token limit (`finish_reason: length`). */
  is_truncated: boolean;
  routed_experts: null;
}

/**
 * One token sequence of the episode — the whole episode, unless a turn began a new one: its first
 * prompt, then each completion and what the next prompt added.
 */
export interface EpisodeSequence {
  ids: number[];
  /** 1 where the model generated the token, 0 for prompt, tool result and template tokens. */
  mask: number[];
  /** The model's logprob where `mask` is 1, 0 elsewhere; null when some turn came without logprobs. */
  logprobs: number[] | null;
  /** How many ids the first prompt has: `ids.slice(0, promptLength)` is what the sequence started from. */
  promptLength: number;
  /** The first and the last turn it holds. */
  turns: [number, number];
  /** Why its first turn began a new sequence (its `new_sequence.reason`); null for the episode's first. */
  reason: string | null;
}

/** The check's verdict, what it found wrong (per turn), and the sequences when the verdict is `ok`. */
export interface EpisodeTokens {
  check: TokenCheck;
  /** What is missing or does not line up, turn by turn; null for `ok` and `none`. */
  issue: string | null;
  /** In turn order; empty unless the check is `ok`. */
  sequences: EpisodeSequence[];
}

/**
 * Checks the token data of `record`'s turns and, when every turn's prompt extends the previous
 * turn's prompt and completion (or says it began a new sequence), lays each sequence end to end.
 * Never repairs: a turn that does not line up is reported in `issue` and no sequence is built.
 */
export function episodeTokens(record: TrajectoryRecord): EpisodeTokens {
  const { steps } = record;
  if (!steps.some((step) => step.prompt_token_ids !== null || step.token_ids !== null)) {
    return { check: 'none', issue: null, sequences: [] };
  }
  const gaps = steps.flatMap((step) => {
    if (step.prompt_token_ids === null) return [`turn ${step.turn} has no prompt token ids`];
    if (step.token_ids === null) return [`turn ${step.turn} has no completion token ids`];
    if (step.logprobs !== null && step.logprobs.length !== step.token_ids.length)
      return [
        `turn ${step.turn} has ${step.logprobs.length} logprobs for ${step.token_ids.length} completion token ids`,
      ];
    return [];
  });
  if (gaps.length > 0) return { check: 'incomplete', issue: gaps.join('; '), sequences: [] };

  const runs = sequenceRuns(steps);
  const mismatches: string[] = [];
  for (const run of runs) {
    for (let i = 1; i < run.length; i++) {
      const problem = extensionProblem(run[i - 1]!, run[i]!);
      if (problem !== undefined) mismatches.push(problem);
    }
  }
  if (mismatches.length > 0) return { check: 'mismatch', issue: mismatches.join('; '), sequences: [] };
  return { check: 'ok', issue: null, sequences: runs.map(layEndToEnd) };
}

/** The turns cut where a turn began a new sequence. */
function sequenceRuns(steps: readonly TrajectoryStep[]): TrajectoryStep[][] {
  const runs: TrajectoryStep[][] = [];
  for (const step of steps) {
    const current = runs.at(-1);
    if (current === undefined || step.new_sequence !== undefined) runs.push([step]);
    else current.push(step);
  }
  return runs;
}

/**
 * One turn's token data in verifiers' layout, or null unless the turn has prompt ids, completion ids
 * and one logprob per completion id (what verifiers itself requires before it records a turn's tokens).
 */
export function stepTokens(step: TrajectoryStep): StepTokens | null {
  const { prompt_token_ids: prompt, token_ids: completion, logprobs } = step;
  if (prompt === null || completion === null || logprobs === null || logprobs.length !== completion.length) return null;
  return {
    prompt_ids: prompt,
    prompt_mask: prompt.map(() => 0),
    completion_ids: completion,
    completion_mask: completion.map(() => 1),
    completion_logprobs: logprobs,
    overlong_prompt: false,
    is_truncated: step.finish_reason === 'length',
    routed_experts: null,
  };
}

/** Why `next`'s prompt is not `previous`'s prompt and completion followed by more, or undefined when it is. */
function extensionProblem(previous: TrajectoryStep, next: TrajectoryStep): string | undefined {
  const expected = [...previous.prompt_token_ids!, ...previous.token_ids!];
  const actual = next.prompt_token_ids!;
  const head = `turn ${next.turn}'s prompt ids do not extend turn ${previous.turn}'s prompt and completion`;
  const length = Math.min(expected.length, actual.length);
  for (let position = 0; position < length; position++) {
    if (expected[position] !== actual[position]) {
      return `${head}: they differ at position ${position} of ${expected.length} (expected id ${expected[position]}, got ${actual[position]})`;
    }
  }
  if (actual.length < expected.length) {
    return `${head}: the prompt has ${actual.length} ids, fewer than the ${expected.length} before it`;
  }
  return undefined;
}

function layEndToEnd(steps: readonly TrajectoryStep[]): EpisodeSequence {
  const ids: number[] = [];
  const mask: number[] = [];
  const withLogprobs = steps.every((step) => step.logprobs !== null);
  const logprobs: number[] = [];
  for (const step of steps) {
    // The prompt's new part: tool results and template tokens since the previous completion.
    for (const id of step.prompt_token_ids!.slice(ids.length)) {
      ids.push(id);
      mask.push(0);
      logprobs.push(0);
    }
    step.token_ids!.forEach((id, position) => {
      ids.push(id);
      mask.push(1);
      logprobs.push(step.logprobs?.[position] ?? 0);
    });
  }
  const first = steps[0]!;
  return {
    ids,
    mask,
    logprobs: withLogprobs ? logprobs : null,
    promptLength: first.prompt_token_ids?.length ?? 0,
    turns: [first.turn, steps.at(-1)!.turn],
    reason: first.new_sequence?.reason ?? null,
  };
}
