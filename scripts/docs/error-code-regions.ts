import { ERROR_CODES, type ErrorCode, errorCodesWhere } from '../../src/protocol/error-codes.js';
import type { DocRegion } from './doc-regions.js';

/** The error tables of the docs, generated from src/protocol/error-codes.ts: one per place codes show. */
export const ERROR_CODE_REGIONS: readonly DocRegion[] = [
  { file: 'docs/api.md', name: 'error-codes-http', render: () => errorCodeTable(errorCodesWhere('http'), true) },
  { file: 'docs/api.md', name: 'error-codes-run', render: () => errorCodeTable(errorCodesWhere('run'), false) },
  { file: 'docs/rollouts.md', name: 'error-codes-cli', render: () => errorCodeTable(errorCodesWhere('cli'), true) },
];

/** A Markdown table of `codes` in the table's order: code, status (with `withStatus`), meaning. */
export function errorCodeTable(codes: readonly ErrorCode[], withStatus: boolean): string {
  const rows = codes.map((code) => {
    const { status, meaning } = ERROR_CODES[code];
    return withStatus ? `| \`${code}\` | ${status} | ${meaning} |` : `| \`${code}\` | ${meaning} |`;
  });
  const head = withStatus ? ['| code | status | when |', '|---|---|---|'] : ['| code | when |', '|---|---|'];
  return [...head, ...rows].join('\n');
}
