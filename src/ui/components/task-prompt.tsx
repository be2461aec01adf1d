/** How much of the task shows on its folded line. */
const PREVIEW_CHARS = 120;

/**
 * The environment's prompt (`prompt.available`): the task the model is answering, folded at the top of
 * the run with its first words showing, so a person can read the question the model quotes. Shown as
 * the environment wrote it, as text.
 */
export function TaskPrompt({ text }: { text: string }) {
  const line = text.trim().split('\n', 1)[0] ?? '';
  const preview = line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line;
  return (
    <details class="task">
      <summary>
        <span class="task-label">Task</span>
        <span class="task-preview" dir="auto">
          {preview}
        </span>
      </summary>
      <p class="task-text" dir="auto">
        {text}
      </p>
    </details>
  );
}
