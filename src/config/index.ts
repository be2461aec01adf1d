export { ConfigError } from './config-error.js';
export { episodeCaps } from './episode-caps.js';
export { loadConfig } from './load-config.js';
export { modelAnswerCaps } from './model-answer-caps.js';
export { secretValues } from './secret-values.js';
export type { Config, WebhookSettings } from './settings.js';
