/**
 * The page's polite live region: screen readers read each sentence put here (the run's text a
 * sentence at a time, tool calls, the run's end) without moving the reader's focus. Invisible on screen.
 */
export function Announcer({ messages }: { messages: Array<{ id: number; text: string }> }) {
  return (
    <div class="visually-hidden" aria-live="polite" aria-relevant="additions" data-testid="announcer">
      {messages.map((message) => (
        <p key={message.id}>{message.text}</p>
      ))}
    </div>
  );
}
