import type { LoadClient } from '../load/load-client-api.js';
import { type CpuReadable, measure } from './measure.js';

/** Time and the serving process's CPU per turn. */
export interface TurnCost {
  wallUsPerTurn: number;
  cpuUsPerTurn: number;
}

/**
 * Plays `episodes` runs of `model` one after another through the HTTP API of the bridge at `url`, each
 * read by one subscriber (the load client drives them), and answers what a turn cost: the CPU is
 * `server`'s when the bridge serves from another process, else this process's. Throws, naming `what`,
 * when a run failed or the turns played are not `episodes × turns`.
 */
export async function driveApiTurns(
  load: LoadClient,
  {
    url,
    model,
    episodes,
    turns,
    what,
    server,
  }: { url: string; model: string; episodes: number; turns: number; what: string; server?: CpuReadable },
): Promise<TurnCost> {
  const drive = () =>
    load.driveRuns({ baseUrl: url, body: { model: `openai:${model}`, max_turns: 20 }, runs: episodes, concurrency: 1 });
  const { value, cpuMs } = await measure(drive, server);
  if (value.failed > 0) throw new Error(`${what}: ${value.failed} runs failed, e.g. ${value.firstError}`);
  if (value.turns !== episodes * turns)
    throw new Error(`${what}: the API played ${value.turns} turns; expected ${episodes * turns}.`);
  return { wallUsPerTurn: (value.elapsedMs * 1000) / value.turns, cpuUsPerTurn: (cpuMs * 1000) / value.turns };
}
