export { ConfigError } from './config-error.js';
export { loadConfig } from './load-config.js';
export { secretValues } from './secret-values.js';
export type { Config, WebhookSettings } from './settings.js';
