import { describe, expect, it } from 'vitest';
import {
  hasEventBefore,
  openReasoningTurn,
  openStreamsBefore,
  openTextTurn,
} from '../../../src/http/formats/open-streams.js';
import { logOf, twoTurnEpisode } from './log-of.js';

describe('what a turn has open', () => {
  const { log } = logOf(twoTurnEpisode);
  const seqOf = (event: string, nth = 0) => log.entries.filter((entry) => entry.event.event === event)[nth]!.event.seq;

  it('is nothing before the first streamed output of a turn', () => {
    expect(openStreamsBefore(log.entries, seqOf('reasoning.delta'))).toEqual({});
  });

  it('is the turn whose reasoning and text stream until an event of another kind comes', () => {
    expect(openReasoningTurn(log.entries, seqOf('message.delta'))).toBe(1);
    expect(openTextTurn(log.entries, seqOf('message.delta'))).toBeUndefined();
    expect(openTextTurn(log.entries, seqOf('message.delta', 1))).toBe(1);
    expect(openStreamsBefore(log.entries, seqOf('turn.completed'))).toEqual({ text: 1, reasoning: 1 });
  });

  it('is nothing once an event of another kind has come', () => {
    expect(openStreamsBefore(log.entries, seqOf('tool.started'))).toEqual({});
    expect(openTextTurn(log.entries, seqOf('message.delta', 2))).toBeUndefined();
  });
});

describe('hasEventBefore', () => {
  const { log } = logOf(twoTurnEpisode);
  const secondTurnText = log.entries.filter((entry) => entry.event.event === 'message.delta')[2]!.event.seq;

  it('tells whether an event of the given types came earlier in the log', () => {
    expect(hasEventBefore(log.entries, secondTurnText, ['message.delta'])).toBe(true);
    expect(hasEventBefore(log.entries, 3, ['message.delta'])).toBe(false);
    expect(hasEventBefore(log.entries, log.lastSeq, ['run.failed'])).toBe(false);
  });
});
