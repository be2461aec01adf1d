import { z } from 'zod';
import { type BenchChild, startBenchChild } from '../support/bench-child.js';

/**
 * The loops an episode-loop process plays episodes with: the two peer SDKs, and the hand-written loop
 * on `node:http` (the raw loop) and with its model calls through the `openai` SDK (the SDK loop) for
 * reference. Each runs in a process of its own, so its CPU is its own.
 */
export const EPISODE_LOOPS = ['ai-sdk', 'openai-agents', 'raw-loop', 'sdk-loop'] as const;
export type EpisodeLoopName = (typeof EPISODE_LOOPS)[number];

export const PlayEpisodesParamsSchema = z.object({
  /** The fake model's model name, e.g. `solve-in-2`. */
  model: z.string(),
  episodes: z.number().int().positive(),
  concurrency: z.number().int().positive(),
});

export const PlayEpisodesResultSchema = z.object({
  /** From the first episode's start to the last one's end. */
  elapsedMs: z.number(),
  /** The process's CPU (user + system) over the same span. */
  cpuMs: z.number(),
  /** Episodes a tool said finished. */
  finished: z.number().int(),
  /** Model turns of those episodes. */
  turns: z.number().int(),
  /** The first episode that threw or did not finish, described. */
  firstError: z.string().nullable(),
});
export type PlayEpisodesResult = z.infer<typeof PlayEpisodesResultSchema>;

/** The parent's view of an episode-loop process. */
export class EpisodeLoopProcess {
  private constructor(
    readonly name: EpisodeLoopName,
    private readonly child: BenchChild,
  ) {}

  /** Starts the process of `name`, its loop pointed at the fake model and the fake ORS server. */
  static async start(
    name: EpisodeLoopName,
    { modelBaseUrl, orsUrl }: { modelBaseUrl: string; orsUrl: string },
  ): Promise<EpisodeLoopProcess> {
    const child = await startBenchChild(name, new URL('./episode-loop-process.ts', import.meta.url), [
      name,
      modelBaseUrl,
      orsUrl,
    ]);
    return new EpisodeLoopProcess(name, child);
  }

  /** Plays `episodes` episodes, `concurrency` at once (episode i on task i of `train`), and answers what they cost. */
  playEpisodes(params: z.input<typeof PlayEpisodesParamsSchema>): Promise<PlayEpisodesResult> {
    return this.child.call('playEpisodes', params, PlayEpisodesResultSchema);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
