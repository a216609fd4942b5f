/**
 * Every word of the error reference page (api/docs/errors.tsx) that is not an entry of the error
 * registry (domain/error-codes.ts). English only, like the rest of the docs. Text between
 * backticks is shown as code.
 */
export const ERRORS_COPY = {
  title: 'Error reference',
  lead:
    'Every error the API answers has the same envelope: `{ "error": { "type", "code", "message", "doc_url", "request_id", "param"?, "details"? } }`. ' +
    'Act on `type` (what kind of failure, and whether to retry) and on `code` (exactly what happened); `message` is for people and may change.',
  rules: [
    '`code` is stable and only ever added to: handle the codes you need and treat any other by its `type`.',
    '`param` names the offending request field (a body field as a dotted path, a query parameter or a header).',
    '`details` is machine-readable; its members depend on the code and are listed below.',
    "`doc_url` links to the code's entry on this page; `request_id` (also the `Request-Id` header) is what support asks for.",
    'Answers that ask you to wait send `Retry-After` (seconds).',
  ],
  typesHeading: 'Error types',
  typesIntro: 'The type says what to do in general; the sections below list the codes of each type.',
  typeColumn: 'type',
  statusColumn: 'HTTP status',
  recoveryColumn: 'What to do',
  codesColumn: 'codes',
  codesHeading: (n: number) => `Codes (${n})`,
  statusLabel: 'Status',
  typeLabel: 'Type',
  alsoTypes: '; on some routes also ',
  whenLabel: 'When',
  paramLabel: '`param`',
  detailsLabel: '`details`',
  retryAfterLabel: '`Retry-After`',
  retryAfterValue: 'Sent: wait that many seconds before retrying.',
  recoveryLabel: 'What to do',
  simulatorOnly: 'Sandbox simulator only (`/sim` and the sandbox pages), never answered by `/v1`.',
  reserved: 'Reserved: named by the specification, answered by no operation today.',
  backToTop: 'Back to the error types',
} as const;
