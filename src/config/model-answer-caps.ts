import type { ModelAnswerCaps } from '../protocol/model-answer-caps.js';
import type { Config } from './settings.js';

/** How much of each model answer the bridge reads, as the settings say (docs/security.md). */
export function modelAnswerCaps(config: Config): ModelAnswerCaps {
  return {
    maxEventBytes: config.modelMaxEventBytes,
    maxAnswerBytes: config.modelMaxAnswerBytes,
    maxErrorBytes: config.modelMaxErrorBytes,
  };
}
