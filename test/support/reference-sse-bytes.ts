/**
 * The bytes the ORS reference server (Python, sse-starlette) writes, reproduced for fakes: CRLF line
 * endings, `: ping - <timestamp>` keep-alive comments, and JSON with Python's `", "` / `": "`
 * separators, cut into pieces of 4096 characters (code points, as Python counts them).
 */

/** One SSE frame with CRLF endings; multi-line data becomes one `data:` line per line. */
export function referenceFrame(event: string, data: string): string {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\r\n`);
  return `event: ${event}\r\n${lines.join('')}\r\n`;
}

/** The keep-alive comment sse-starlette sends, e.g. `: ping - 2025-06-01 12:00:00.123456+00:00`. */
export function referencePing(now: Date = new Date()): string {
  const stamp = now.toISOString().replace('T', ' ').replace('Z', '000+00:00');
  return `: ping - ${stamp}\r\n\r\n`;
}

/** `json.dumps(value)` as Python writes it: `", "` between items and `": "` after keys. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `json` cut every `size` code points; the reference sends all pieces but the last as `chunk`. */
export function referencePieces(json: string, size = 4096): string[] {
  const points = Array.from(json);
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(''));
  return pieces.length === 0 ? [''] : pieces;
}

/** The whole call answer the reference writes for a result: `task_id`, `chunk`*, `end`. */
export function referenceCallFrames(taskId: string, resultJson: string, size = 4096): string[] {
  const pieces = referencePieces(resultJson, size);
  return [
    referenceFrame('task_id', taskId),
    ...pieces.map((piece, index) => referenceFrame(index === pieces.length - 1 ? 'end' : 'chunk', piece)),
  ];
}
