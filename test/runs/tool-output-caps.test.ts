import { afterEach, describe, expect, it } from 'vitest';
import type { Block } from '../../src/ors/ors-schemas.js';
import type { EventDetail } from '../../src/protocol/event-detail.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import type { EpisodeRecord } from '../../src/runs/episode-record.js';
import { EventLog } from '../../src/runs/event-log.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { type ScriptedToolReply, textBlock } from '../support/scripted-ors-environment.js';

/**
 * A tool result is kept up to `RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS` (docs/protocol.md §1.7): the entry's
 * detail — what the next model turn and the record read — holds the result cut there, with a note at
 * the cut that the model reads too, and says it was cut.
 */

const STORED = 10_000;

describe('runEpisode and a tool result larger than what is kept', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  async function play(reply: ScriptedToolReply): Promise<{ record: EpisodeRecord; entries: EventLog['entries'] }> {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'big', { run: () => reply });
    const model = scriptedProvider({ one: [{ toolCalls: [{ name: 'big', arguments: '{}' }] }] }).create('one');
    const log = new EventLog('run_test');
    const record = await runEpisode({
      ors: rig.client,
      model,
      env: 'arith',
      task: { split: 'train', index: 0 },
      maxTurns: 2,
      toolOutputEventChars: 1000,
      caps: { toolOutputStoredChars: STORED },
      signal: new AbortController().signal,
      emit: (event, detail) => log.append(event, detail),
    });
    return { record, entries: log.entries };
  }

  const result = (blocks: Block[]): ScriptedToolReply => ({ ok: true, output: { blocks, reward: 0.5 } });

  function completed(entries: EventLog['entries']): { event: RunEvent; detail: EventDetail | undefined } {
    return entries.find((entry) => entry.event.event === 'tool.completed')!;
  }

  it('keeps a long text cut at the bound, with a note the model reads, and marks the detail cut', async () => {
    const text = 'a'.repeat(STORED * 5);
    const { record, entries } = await play(result([textBlock(text)]));

    const { event, detail } = completed(entries);
    expect(event).toMatchObject({ output: 'a'.repeat(1000), truncated: true, reward: 0.5 });
    expect(detail?.tool?.truncated).toBe(true);
    const [kept, note] = detail!.tool!.content!;
    expect(kept).toEqual({ type: 'text', text: 'a'.repeat(STORED) });
    expect(note).toMatchObject({ type: 'text', text: expect.stringContaining('RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS') });
    // The model's next turn, and the record, read what was kept.
    const toolMessage = record.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toEqual([
      { type: 'text', text: 'a'.repeat(STORED) },
      { type: 'text', text: expect.stringContaining(`${STORED} characters`) },
    ]);
    expect(record.end).toMatchObject({ status: 'completed' });
  });

  it('drops the images past the bound whole, and keeps what came before them', async () => {
    const image: Block = { type: 'image', mimeType: 'image/png', data: 'i'.repeat(STORED), detail: null };
    const { entries } = await play(result([textBlock('b'.repeat(4000)), image, textBlock('c'.repeat(100))]));

    const { detail } = completed(entries);
    expect(detail?.tool?.truncated).toBe(true);
    expect(detail!.tool!.content!.map((part) => part.type)).toEqual(['text', 'text']);
    expect(detail!.tool!.content![0]).toEqual({ type: 'text', text: 'b'.repeat(4000) });
  });

  it('keeps a result within the bound whole, unmarked', async () => {
    const { entries } = await play(result([textBlock('d'.repeat(STORED))]));
    const { detail } = completed(entries);
    expect(detail?.tool?.truncated).toBeUndefined();
    expect(detail!.tool!.content).toEqual([{ type: 'text', text: 'd'.repeat(STORED) }]);
  });

  it('cuts a tool error message at the same bound', async () => {
    const { entries } = await play({ ok: false, error: 'e'.repeat(STORED * 3) });
    const { event } = completed(entries);
    expect(event.event === 'tool.completed' && event.error_message).toMatch(
      new RegExp(`^e{${STORED}}\\n\\[.*RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS`),
    );
  });
});
