import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { TurnOutputMeter } from '../../src/runs/turn-output-meter.js';

describe('TurnOutputMeter', () => {
  it('counts text, reasoning and arguments together, and throws model_output_too_large once past the limit', () => {
    const meter = new TurnOutputMeter(10, 3);
    meter.text(4);
    meter.reasoningDelta(3);
    meter.argumentsDelta('a', 3);
    expect(() => meter.text(1)).toThrow(ModelError);
    expect(() => new TurnOutputMeter(0, 3).text(1)).toThrow(
      expect.objectContaining({ code: 'model_output_too_large', details: { turn: 3, limit: 0 } }),
    );
  });

  it('counts reasoning streamed and then delivered whole once', () => {
    const meter = new TurnOutputMeter(10, 1);
    meter.reasoningDelta(6);
    meter.reasoningBlock(6);
    meter.text(4);
    expect(() => meter.reasoningBlock(1)).toThrow(/RUNBRIDGE_MAX_TURN_OUTPUT_CHARS/);
  });

  it("counts a call's arguments streamed and then delivered whole once, the larger of the two", () => {
    const meter = new TurnOutputMeter(10, 1);
    meter.argumentsDelta('a', 4);
    meter.call('a', 5);
    meter.call('b', 5);
    expect(() => meter.argumentsDelta('a', 1)).toThrow(/Turn 1 of the model passed 10 characters/);
  });

  it('counts token data, which comes without text, with the rest', () => {
    const meter = new TurnOutputMeter(10, 2);
    meter.text(2);
    meter.tokenData(8);
    expect(() => meter.tokenData(1)).toThrow(expect.objectContaining({ code: 'model_output_too_large' }));
  });
});
