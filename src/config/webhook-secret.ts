import { z } from 'zod';
import { type Kind, optionalText } from './setting-kinds.js';

/** A Standard Webhooks signing secret, `whsec_` and base64 of 24 bytes or more; `undefined` when unset or blank. */
export function webhookSecret(): Kind<string | undefined> {
  return {
    schema: optionalText.pipe(
      z
        .string()
        .refine(
          isWebhookSecret,
          'must be "whsec_" followed by at least 24 bytes in base64, e.g. whsec_$(openssl rand -base64 32)',
        )
        .optional(),
    ),
    accepts: '`whsec_` and base64 of at least 24 bytes',
    default: '— (webhooks refused)',
    secret: true,
  };
}

function isWebhookSecret(text: string): boolean {
  const encoded = text.startsWith('whsec_') ? text.slice('whsec_'.length) : '';
  return /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && Buffer.from(encoded, 'base64').length >= 24;
}
