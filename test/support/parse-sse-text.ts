import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** The SSE messages in `text`, as a spec-following parser dispatches them (an unfinished last frame is dropped). */
export function parseSseText(text: string): EventSourceMessage[] {
  const messages: EventSourceMessage[] = [];
  createParser({ onEvent: (message) => messages.push(message) }).feed(text);
  return messages;
}
