import type { ContentPart } from '../../../src/models/conversation.js';

/**
 * The text of content parts joined by newlines — the same layout the orchestrator uses for ORS
 * blocks — for vendors whose message slot takes only text. Each image becomes `[image: mime/type]`
 * in its place, so the model still learns that an image was there and where.
 */
export function joinTextParts(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : `[image: ${part.mimeType}]`)).join('\n');
}
