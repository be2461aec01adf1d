import type { Message } from '../../../src/models/conversation.js';

/**
 * The offline model's "sampling": seeded slips that stand in for a real model's occasional mistakes.
 *
 * The rule: at temperature `t`, each slip-prone decision (a calculator expression, a submitted value)
 * goes wrong with probability `min(0.5, 0.2 × t)`. The draw is a hash of the seed, the decision's label
 * and the whole conversation so far, so the same seed and conversation always slip the same way, while
 * different seeds (several samples of one task) or different conversations draw independently.
 * At temperature 0 nothing ever slips.
 */

/** Chance that one slip-prone decision goes wrong at `temperature`. */
export function slipRate(temperature: number): number {
  return Math.min(0.5, 0.2 * Math.max(0, temperature));
}

/** Seeded draws for one turn. */
export interface SamplingNoise {
  /** True when the decision named `label` goes wrong this turn. */
  slips(label: string): boolean;
  /** A draw in [0, count) for the decision named `label`, e.g. which operand to miscopy. */
  choose(label: string, count: number): number;
}

/** Noise for one turn of `messages`, given the sampling temperature and seed. */
export function samplingNoise(options: {
  temperature: number;
  seed: number;
  messages: readonly Message[];
}): SamplingNoise {
  const rate = slipRate(options.temperature);
  const base = fnv1a(JSON.stringify(options.messages), fnv1a(String(options.seed)));
  const draw = (label: string): number => unitFloat(fnv1a(label, base));
  return {
    slips: (label) => rate > 0 && draw(`slip:${label}`) < rate,
    choose: (label, count) => Math.min(count - 1, Math.floor(draw(`choose:${label}`) * count)),
  };
}

/** 32-bit FNV-1a of `text`, continuing from `start` so several strings can be chained. */
function fnv1a(text: string, start = 0x811c9dc5): number {
  let hash = start;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** One mulberry32 step: spreads a hash evenly over [0, 1). */
function unitFloat(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
