import { describe, expect, it } from 'vitest';
import type { ModelFinishReason } from '../../src/models/model.js';
import { FinishReasonSchema } from '../../src/protocol/run-events.js';
import { wireFinishReason } from '../../src/runs/wire-finish-reason.js';

describe('wireFinishReason', () => {
  it("puts each of the model contract's finish reasons on the wire of turn.completed in the same word", () => {
    const reasons: ModelFinishReason[] = ['stop', 'tool_calls', 'length', 'content_filter', 'error', 'other'];
    for (const reason of reasons) expect(FinishReasonSchema.parse(wireFinishReason(reason))).toBe(reason);
  });
});
