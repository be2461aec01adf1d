/**
 * The provider-neutral conversation the orchestrator keeps and every model adapter converts from.
 * Adapters translate these into their vendor's messages; nothing here knows a vendor.
 */

/** A piece of user or tool content. Images travel as base64 with their MIME type. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string };

/** One complete tool call the model made. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  /** The provider's id of the call, echoed in its tool result. */
  id: string;
  /** The tool called. */
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly invalid. */
  arguments: string;
}

/**
 * A block of model reasoning. `providerData` is opaque state the producing adapter needs to send the
 * block back on the next turn (Anthropic's thinking signature, an encrypted Responses item); other
 * adapters ignore it.
 */
export interface ReasoningBlock {
  /** The reasoning as text (a summary, with some providers). */
  text: string;
  providerData?: unknown;
}

/** One message of the provider-neutral conversation: system, user, assistant (with reasoning and tool calls) or tool result. */
export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: ContentPart[] }
  | { role: 'assistant'; content: string; reasoning: ReasoningBlock[]; toolCalls: ToolCall[] }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      content: ContentPart[];
      isError: boolean;
      /**
       * The arguments the call ran with when a person's approval changed them (docs/protocol.md §7);
       * the assistant message keeps what the model wrote. Absent otherwise.
       */
      editedArguments?: Record<string, unknown>;
    };

/** A tool offered to the model. `inputSchema` is always a JSON Schema object (never null). */
export interface ToolDefinition {
  /** The name the model calls it by. */
  name: string;
  /** What it does, for the model. */
  description: string;
  /** JSON Schema of its input object. */
  inputSchema: Record<string, unknown>;
}
