import { describe, expect, it } from 'vitest';
import { combinedFormat } from '../../../src/http/formats/combined-format.js';
import { eventsFormat } from '../../../src/http/formats/events-format.js';
import { ChatCompletionChunkSchema } from '../../../src/protocol/chat-completion.js';
import { parseSseText } from '../../support/parse-sse-text.js';
import { logOf, streamedCallsEpisode, twoTurnEpisode } from './log-of.js';

describe('format=combined', () => {
  const { log, context } = logOf(twoTurnEpisode);

  it('frames every event but message.delta exactly as format=events does: id, event name, typed JSON', () => {
    for (const entry of log.entries.filter((candidate) => candidate.event.event !== 'message.delta')) {
      expect(combinedFormat.frame(entry, context)).toBe(eventsFormat.frame(entry, context));
    }
  });

  it('sends a message.delta as an unnamed chat.completion.chunk frame with the text in delta.content and its seq as id', () => {
    const texts = log.entries.filter((entry) => entry.event.event === 'message.delta');
    const frames = texts.map((entry) => parseSseText(combinedFormat.frame(entry, context)));
    expect(frames.every((messages) => messages.length === 1 && messages[0]!.event === undefined)).toBe(true);
    expect(frames.map((messages) => messages[0]!.id)).toEqual(texts.map((entry) => String(entry.event.seq)));
    const content = frames.map(
      (messages) => ChatCompletionChunkSchema.parse(JSON.parse(messages[0]!.data)).choices[0]!.delta.content,
    );
    expect(content.join('')).toBe('Let me add.\n\nIt is 4.');
  });

  it('carries tool.arguments.delta and tool.progress as typed events, named and numbered', () => {
    const streamed = logOf(streamedCallsEpisode);
    const messages = streamed.log.entries.flatMap((entry) =>
      parseSseText(combinedFormat.frame(entry, streamed.context)),
    );
    const typed = messages.filter(
      (message) => message.event === 'tool.arguments.delta' || message.event === 'tool.progress',
    );
    expect(typed.map((message) => message.event)).toEqual([
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.progress',
    ]);
    expect(typed.every((message) => message.id === String(JSON.parse(message.data).seq))).toBe(true);
  });

  it('ends with data: [DONE], after the terminal typed event', () => {
    const text =
      log.entries.map((entry) => combinedFormat.frame(entry, context)).join('') +
      combinedFormat.end(log.terminal!, context);
    const messages = parseSseText(text);
    expect(messages.at(-2)!.event).toBe('run.completed');
    expect(messages.at(-1)).toEqual({ id: undefined, event: undefined, data: '[DONE]' });
  });
});
