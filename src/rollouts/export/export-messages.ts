import type { ChatContentPart, ChatMessage, TrajectoryRecord } from '../trajectory-schema.js';

/**
 * The conversation as the exports write it (`docs/trajectory.md`, "Export"): split into the prompt
 * and what the model did with it, and with one content type across a whole export.
 */

type SystemMessage = Extract<ChatMessage, { role: 'system' }>;
type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** A record's chat message, or one whose content was turned into parts by {@link messagesForExport}. */
export type ExportedMessage =
  | ChatMessage
  | (Omit<SystemMessage, 'content'> & { content: ChatContentPart[] })
  | (Omit<AssistantMessage, 'content'> & { content: ChatContentPart[] | null });

/** The messages before the model's first turn, and the rest (model turns and tool results). */
export interface SplitConversation {
  prompt: ExportedMessage[];
  completion: ExportedMessage[];
}

/** Splits at the first assistant message; an episode that failed before any turn has an empty completion. */
export function splitConversation(messages: readonly ExportedMessage[]): SplitConversation {
  const first = messages.findIndex((message) => message.role === 'assistant');
  return first < 0
    ? { prompt: [...messages], completion: [] }
    : { prompt: messages.slice(0, first), completion: messages.slice(first) };
}

/** Whether any message of `record` holds an image, which makes its content a list of parts. */
export function hasImageContent(record: TrajectoryRecord): boolean {
  return record.messages.some((message) => Array.isArray(message.content));
}

/**
 * `messages` with every content as a list of parts when `asParts` (text becomes one `text` part; an
 * assistant's null content stays null), unchanged otherwise. Readers that build one column type per
 * file (Arrow, so Hugging Face `datasets`) fail on a column that holds strings in some rows and lists
 * in others, so an export that holds any image writes all its contents as lists.
 */
export function messagesForExport(messages: readonly ChatMessage[], asParts: boolean): ExportedMessage[] {
  return messages.map(withoutHumanMarks).map((message): ExportedMessage => {
    if (!asParts) return message;
    switch (message.role) {
      case 'system':
      case 'user':
      case 'tool':
        return { ...message, content: toParts(message.content) };
      case 'assistant':
        return { ...message, content: message.content === null ? null : toParts(message.content) };
    }
  });
}

/**
 * The message in the plain shape of its format: the marks of a person's part (`origin`,
 * `message_id`, `approval`) stay in the trajectory records, out of the exports, whose readers and
 * chat templates know only the OpenAI fields.
 */
function withoutHumanMarks(message: ChatMessage): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return message;
  }
}

function toParts(content: string | ChatContentPart[]): ChatContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
